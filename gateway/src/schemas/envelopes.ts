import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox';

/**
 * The building blocks of the answers' schemas. A route declares its 200 as one of these
 * (`response: { 200: TicketResult }`); presenters.ts returns `Static<typeof …>` of the records, so
 * the type checker refuses a presenter that drifts from the documented answer. Fastify does not
 * serialize with them (app.ts, plain-answers.ts): an answer is what its handler returns.
 *
 * A schema with a `$id` becomes a named component of the OpenAPI document (`#/components/schemas/<$id>`,
 * openapi/document.ts), wherever a route's answer holds it.
 */

type Scalars = { string: string; integer: number; number: number; boolean: boolean };

/** A value of a JSON Schema type or null, written as the records write it: `type: [<type>, 'null']`. */
export const Nullable = <K extends keyof Scalars>(type: K, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Scalars[K] | null>({ type: [type, 'null'], ...options });

/** A record: every field listed, none beyond them, so the e2e answer check fails on a field added or renamed without the schema. */
export const Exact = <T extends TProperties>(properties: T, options: Record<string, unknown> = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** An object or null whose fields are listed (none beyond them) but not required. */
export const NullableObject = <T extends TObject>(object: T, options: Record<string, unknown> = {}) =>
  Type.Unsafe<Static<T> | null>({ type: ['object', 'null'], properties: object.properties, additionalProperties: false, ...options });

/** Exactly one of the schemas (`oneOf`, where TypeBox's union writes `anyOf`). */
export const OneOf = <T extends TSchema[]>(schemas: [...T], options: Record<string, unknown> = {}) =>
  Type.Unsafe<Static<T[number]>>({ oneOf: schemas, ...options });

/** Every answer of success: `{ success: true, data }`, with an example of `data` when one helps a reader. */
export const Envelope = <T extends TSchema>(data: T, options: { $id?: string; example?: Static<T> } = {}) => {
  const { $id, example } = options;
  return Type.Object(
    { success: Type.Literal(true), data },
    {
      additionalProperties: false,
      ...($id ? { $id } : {}),
      ...(example === undefined ? {} : { examples: [{ success: true, data: example }] }),
    },
  );
};

/** The paging fields of the external API's lists (docs/api/pagination.md). */
export const PAGE = { count: Type.Integer(), hasMore: Type.Boolean(), pageNumber: Type.Integer(), pageSize: Type.Integer() };

/**
 * A send is accepted (stored, then delivered by the dispatcher: docs/sending.md); a repeated
 * Idempotency-Key whose first send was skipped answers `skipped` without `data`.
 */
export const Skipped = Exact({
  success: Type.Literal(true),
  idempotent: Type.Literal(true),
  skipped: Type.Literal(true),
  ticketId: Type.Integer(),
});
export const AcceptedOr = <T extends TSchema>($id: string, data: T, example?: Static<T>) =>
  OneOf([Envelope(data, { example }), Skipped], { $id });

export const SendResult = AcceptedOr('SendResult', Exact({ message: Type.String(), ticketId: Type.Integer(), messageId: Type.String() }), {
  message: 'Message accepted for delivery',
  ticketId: 42,
  messageId: '3f6c…',
});
export type SendResult = Static<typeof SendResult>;

/** The error envelope of every error answer (docs/api/README.md, "Errors"); errors.ts writes it. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: 'ERR_… code (docs/api/README.md, "Errors")' }),
    message: Type.String({ description: 'For a person' }),
    details: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Object({ field: Type.String(), message: Type.String() }),
          Type.Object(
            {
              provider: Type.String(),
              status: Type.Optional(Type.Integer({ description: "The provider's HTTP status" })),
              transient: Type.Optional(Type.Boolean({ description: 'Worth retrying' })),
            },
            { description: "ERR_PROVIDER_FAILED: the provider's answer (its body, code or trace id where it gave them)" },
          ),
        ]),
        { maxItems: 20 },
      ),
    ),
    truncated: Type.Optional(Type.Boolean({ description: 'More than 20 field errors' })),
  },
  {
    $id: 'ErrorEnvelope',
    examples: [
      { success: false, error: 'ERR_VALIDATION', message: 'Invalid body', details: [{ field: 'ticketId', message: 'must be >= 1' }] },
    ],
  },
);
