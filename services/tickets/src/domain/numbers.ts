import { validation } from '@convo/kit';

/** Contact numbers are accepted with or without `+` (and common separators) and stored as digits. */
export function normalizeNumber(raw: string, field = 'number'): string {
  const digits = raw.trim().replace(/^\+/, '').replace(/[\s().-]/g, '');
  if (!/^[1-9]\d{7,14}$/.test(digits)) {
    throw validation('Invalid contact number', [{ field, message: 'must be an E.164 number, e.g. +5511987654321' }]);
  }
  return digits;
}
