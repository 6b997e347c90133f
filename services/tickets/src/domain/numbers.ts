import { contactNumberDigits, validation } from '@convo/kit';

/** A contact number's digits (kit's contact-number rule), or ERR_VALIDATION naming `field`. */
export function normalizeNumber(raw: string, field = 'number'): string {
  const digits = contactNumberDigits(raw);
  if (!digits) {
    throw validation('Invalid contact number', [{ field, message: 'must be an E.164 number, e.g. +5511987654321 (or a social platform user id)' }]);
  }
  return digits;
}
