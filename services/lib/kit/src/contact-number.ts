/**
 * The contact-number rule, one for the whole product (docs/decisions.md, "Contact numbers"): a phone number in
 * E.164, with or without `+` and the usual separators (spaces, dots, dashes, parentheses), stored
 * as its digits. Up to 20 digits, because on social channels `number` carries the platform's
 * numeric user id (Messenger PSID, Instagram IGSID: 16–17 digits today).
 */

/** The shape the gateway's schemas accept; the digits are then checked by contactNumberDigits. */
export const CONTACT_NUMBER_PATTERN = '^\\+?[0-9][0-9 ().-]*$';
export const CONTACT_NUMBER_MAX_LENGTH = 30;

/** The number's digits, or undefined when it is not a contact number. */
export function contactNumberDigits(raw: string): string | undefined {
  const digits = raw.trim().replace(/^\+/, '').replace(/[\s().-]/g, '');
  return /^[1-9]\d{7,19}$/.test(digits) ? digits : undefined;
}

/** Digits that can be a phone number (E.164: at most 15), not a platform user id. */
export const isPhoneDigits = (digits: string | undefined): digits is string => !!digits && digits.length <= 15;
