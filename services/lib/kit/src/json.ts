/** A JSON object. */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object field, or {} when it is absent or no object: the tolerant reader of what clients and providers send. */
export const obj = (value: unknown): Json => (isObject(value) ? value : {});
