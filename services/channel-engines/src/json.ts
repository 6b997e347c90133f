import { validation } from '@convo/kit';

/**
 * The one set of JSON readers of this service (drivers and inbound parsers).
 *
 * Tolerant readers, for what providers send: a field of the wrong shape reads as absent
 * (providers omit and null fields freely).
 *
 * Strict readers, for the interactive bodies the REST routes validated: the gateway checks their
 * shape; these refuse, with the field named, only what would make a request the provider cannot
 * read, before anything is sent.
 */

// A JSON object, and the object reader the gateway's validation shares (the kit's).
import { isObject, obj, type Json } from '@convo/kit';

export { isObject, obj, type Json };

// ---- tolerant --------------------------------------------------------------------------------

/** A string field, or '' when absent or of another type (engines omit and null fields freely). */
export const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The non-empty strings of a list field (the message ids a receipt covers); [] when it is no list. */
export const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];

/** A list field, or [] when it is no list. */
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** A string or a number as a string (Meta sends some ids as numbers), or ''. */
export const scalarStr = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

// ---- strict ----------------------------------------------------------------------------------

export function requiredText(json: Json, field: string, path = field): string {
  const value = json[field];
  if (typeof value !== 'string' || !value) throw validation(`${path} is required`, [{ field: path, message: 'is required' }]);
  return value;
}

export function optionalText(json: Json, field: string): string | undefined {
  const value = json[field];
  return typeof value === 'string' && value ? value : undefined;
}

export function requiredList(json: Json, field: string, path = field): Json[] {
  const value = json[field];
  if (!Array.isArray(value) || value.length === 0 || !value.every(isObject)) {
    throw validation(`${path} must be a non-empty list of objects`, [{ field: path, message: 'must be a non-empty list of objects' }]);
  }
  return value;
}

/** `{ field: { text } }`, the seed's body.text / footer.text. */
export function nestedText(json: Json, field: string): string | undefined {
  const text = obj(json[field]).text;
  return typeof text === 'string' && text ? text : undefined;
}

export function requiredNestedText(json: Json, field: string): string {
  const text = nestedText(json, field);
  if (!text) throw validation(`${field}.text is required`, [{ field: `${field}.text`, message: 'is required' }]);
  return text;
}

export function requiredObject(json: Json, field: string): Json {
  const value = json[field];
  if (!isObject(value)) throw validation(`${field} is required`, [{ field, message: 'must be an object' }]);
  return value;
}

export function requiredStrings(json: Json, field: string): string[] {
  const value = json[field];
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v)) {
    throw validation(`${field} must be a non-empty list of texts`, [{ field, message: 'must be a non-empty list of texts' }]);
  }
  return value;
}

export function optionalInteger(json: Json, field: string): number | undefined {
  const value = json[field];
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value)) throw validation(`${field} must be an integer`, [{ field, message: 'must be an integer' }]);
  return value as number;
}

export function requiredNumber(json: Json, field: string): number {
  const value = json[field];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw validation(`${field} must be a number`, [{ field, message: 'must be a number' }]);
  return value;
}
