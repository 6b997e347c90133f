import { BSUID_PATTERN, CONTACT_ID_MAX_LENGTH, CONTACT_ID_PATTERN, CONTACT_NUMBER_PATTERN, contactIdentity } from '@convo/kit';
import Type from 'typebox';

/** A string enum as plain JSON Schema `enum`, which gives one clear error instead of an anyOf list. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Ids are positive int32 (CONVENTIONS "Input bounds"): larger or fractional → 400, never wrapped. */
export const MAX_ID = 2_147_483_647;
export const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, description });
export const NullableId = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: MAX_ID, description });
/** An id written as text ("42", the seed's showAllMessages and listTickets filters): 1 to MAX_ID, as a regular expression. */
export const ID_TEXT =
  '(?:[1-9][0-9]{0,8}|1[0-9]{9}|20[0-9]{8}|21[0-3][0-9]{7}|214[0-6][0-9]{6}|2147[0-3][0-9]{5}|21474[0-7][0-9]{4}|214748[0-2][0-9]{3}|2147483[0-5][0-9]{2}|21474836[0-3][0-9]|214748364[0-7])';
/** A count or a money amount: non-negative and bounded. */
export const Amount = (options: Record<string, unknown> = {}) => Type.Number({ minimum: 0, maximum: 1e12, ...options });
export const Count = (options: Record<string, unknown> = {}) => Type.Integer({ minimum: 0, maximum: 1_000_000, ...options });
export const NonEmpty = (description?: string, maxLength = 4096) => Type.String({ minLength: 1, maxLength, description });

export const ApiParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }) });

/** The shortest identity a contact field takes: a BSUID of one character after its country (`BR.1`). */
const CONTACT_ID_MIN_LENGTH = 4;
const CONTACT_ID_FORMS =
  'a number (E.164, with or without +; on social channels the platform user id), a BSUID (`BR.13491208655302741918`, a parent `US.ENT.11815799212886844830`) or a LID (`<digits>@lid`)';

/**
 * A contact's field wherever the API takes its `number` (docs/api/contact-identities.md): a number
 * as integrators write it (digits with an optional + and common separators), or one of the
 * identities a contact may have instead, told apart by form (the kit's contactIdentity; the
 * services check what the form leaves open, such as the digit count).
 */
export const ContactId = (description: string) =>
  Type.String({
    minLength: CONTACT_ID_MIN_LENGTH,
    maxLength: CONTACT_ID_MAX_LENGTH,
    pattern: CONTACT_ID_PATTERN,
    description: `${description}: ${CONTACT_ID_FORMS}`,
  });

/** The official channel's routes: a phone number or a BSUID (a LID belongs to the unofficial engines). */
export const WabaContactId = (description: string) =>
  Type.String({
    minLength: CONTACT_ID_MIN_LENGTH,
    maxLength: CONTACT_ID_MAX_LENGTH,
    pattern: `${CONTACT_NUMBER_PATTERN}|${BSUID_PATTERN}`,
    description: `${description}: a number (E.164, with or without +) or a BSUID (\`BR.13491208655302741918\`, a parent \`US.ENT.11815799212886844830\`)`,
  });

/** A contact field as the services take it: a number's digits, a BSUID or a LID trimmed, anything else's digits (refused there). */
export const contactKeyOf = (raw: string) => contactIdentity(raw)?.value ?? raw.replace(/\D/g, '');
