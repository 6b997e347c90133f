import Type, { type TSchema } from 'typebox';

/** A string enum as plain JSON Schema `enum`, which gives one clear error instead of an anyOf list. */
export const StringEnum = <const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Ids are positive int32 (CONVENTIONS "Input bounds"): larger or fractional → 400, never wrapped. */
export const MAX_ID = 2_147_483_647;
export const Id = (description?: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, description });
export const NullableId = (description?: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: MAX_ID, description });
/** A count or a money amount: non-negative and bounded. */
export const Amount = (options: Record<string, unknown> = {}) => Type.Number({ minimum: 0, maximum: 1e12, ...options });
export const Count = (options: Record<string, unknown> = {}) => Type.Integer({ minimum: 0, maximum: 1_000_000, ...options });
export const NonEmpty = (description?: string, maxLength = 4096) => Type.String({ minLength: 1, maxLength, description });

export const ApiParams = Type.Object({ apiId: Type.String({ minLength: 1, maxLength: 64 }) });

export const ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });
