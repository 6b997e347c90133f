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
  const digits = raw
    .trim()
    .replace(/^\+/, '')
    .replace(/[\s().-]/g, '');
  return /^[1-9]\d{7,19}$/.test(digits) ? digits : undefined;
}

/** Digits that can be a phone number (E.164: at most 15), not a platform user id. */
export const isPhoneDigits = (digits: string | undefined): digits is string => !!digits && digits.length <= 15;

/**
 * Identities beyond the phone number (docs/decisions.md, "Contact identity"), told apart by form
 * wherever the API takes a contact's `number`:
 * - a business-scoped user id (BSUID) of the official channel: a two-letter country code, a dot and
 *   up to 128 letters and digits (`BR.13491208655302741918`); a parent BSUID has `ENT.` after the
 *   country (`US.ENT.11815799212886844830`);
 * - a LID of the unofficial engines: its JID, `<digits>@lid`.
 */
export const BSUID_PATTERN = '^[A-Z]{2}\\.(ENT\\.)?[A-Za-z0-9]{1,128}$';
export const LID_PATTERN = '^[1-9][0-9]{5,24}@lid$';
/** The gateway's schemas: a number, a BSUID or a LID (each then checked by contactIdentity). */
export const CONTACT_ID_PATTERN = `${CONTACT_NUMBER_PATTERN}|${BSUID_PATTERN}|${LID_PATTERN}`;
export const CONTACT_ID_MAX_LENGTH = 140;

const BSUID = new RegExp(BSUID_PATTERN);
const LID = new RegExp(LID_PATTERN);

export type ContactIdentityKind = 'number' | 'bsuid' | 'parentBsuid' | 'lid';
export interface ContactIdentity {
  kind: ContactIdentityKind;
  /** Digits for a number, the id as given for a BSUID, `<digits>@lid` for a LID. */
  value: string;
}

/** What a contact field holds: a number (its digits), a BSUID, a parent BSUID or a LID; undefined when none of them. */
export function contactIdentity(raw: string): ContactIdentity | undefined {
  const text = raw.trim();
  if (BSUID.test(text)) return { kind: text.slice(3, 7) === 'ENT.' ? 'parentBsuid' : 'bsuid', value: text };
  if (LID.test(text)) return { kind: 'lid', value: text };
  const digits = contactNumberDigits(text);
  return digits ? { kind: 'number', value: digits } : undefined;
}

export const isBsuid = (text: string) => BSUID.test(text);
export const isLid = (text: string) => LID.test(text);

/**
 * Where a message to a contact goes, from the identities it has now: the phone (or the platform
 * user id, or an e-mail address) when known, else its BSUID, its parent BSUID, its LID. Drivers
 * tell the forms apart (a BSUID leaves Meta's Cloud API as `recipient`, a LID as the `@lid` JID).
 */
export function contactAddress(c: { number?: string; email?: string; bsuid?: string; parentBsuid?: string; lid?: string }): string {
  return c.number || c.email || c.bsuid || c.parentBsuid || c.lid || '';
}

/**
 * A contact as answers and customer webhooks show it: `number` is its phone (or platform user id)
 * and "" when it has none (a contact known only by its BSUID or LID keeps that identity where the
 * number would be, as its key: never shown as a number); `bsuid`, `parentBsuid`, `lid` and
 * `username` only when known.
 */
export function shownIdentities(c: { number?: string; bsuid?: string; parentBsuid?: string; lid?: string; username?: string }): {
  number: string;
  bsuid?: string;
  parentBsuid?: string;
  lid?: string;
  username?: string;
} {
  const number = c.number && !isBsuid(c.number) && !isLid(c.number) ? c.number : '';
  return {
    number,
    ...(c.bsuid && { bsuid: c.bsuid }),
    ...(c.parentBsuid && { parentBsuid: c.parentBsuid }),
    ...(c.lid && { lid: c.lid }),
    ...(c.username && { username: c.username }),
  };
}
