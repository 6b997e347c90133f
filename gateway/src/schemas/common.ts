import Type from 'typebox';

/** A string enum as plain JSON Schema `enum`, which gives one clear error instead of an anyOf list. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const Id = (description?: string) => Type.Integer({ minimum: 1, description });
export const NullableId = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, description });
export const NonEmpty = (description?: string, maxLength = 4096) => Type.String({ minLength: 1, maxLength, description });

export const ApiParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }) });

