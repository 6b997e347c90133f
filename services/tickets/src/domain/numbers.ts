import { validation } from '@convo/kit';

/**
 * Contact numbers are accepted with or without `+` (and common separators) and stored as digits.
 * E.164 numbers have at most 15 digits; up to 20 are accepted because on social channels `number`
 * carries the platform's numeric user id (Messenger PSID, Instagram IGSID: 16–17 digits today).
 */
export function normalizeNumber(raw: string, field = 'number'): string {
  const digits = raw.trim().replace(/^\+/, '').replace(/[\s().-]/g, '');
  if (!/^[1-9]\d{7,19}$/.test(digits)) {
    throw validation('Invalid contact number', [{ field, message: 'must be an E.164 number, e.g. +5511987654321 (or a social platform user id)' }]);
  }
  return digits;
}
