// Domain errors: what went wrong in product terms. Adapters (gRPC, HTTP) map them once, in
// grpc/status.ts; domain code never throws transport errors.

export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'payload_too_large'
  | 'unsupported_media'
  | 'provider'
  | 'unavailable'
  | 'internal';

export interface FieldIssue {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly details?: unknown[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const validation = (message: string, details?: FieldIssue[], code = 'ERR_VALIDATION') =>
  new DomainError('validation', code, message, details);

/**
 * How every service checks a request's fields (CONVENTIONS "Errors"): collect every problem, so the
 * caller fixes them in one round, then throw them as one validation error. The rule (docs/development.md
 * "Validation"): a request's own fields, checked together, go through Issues; a single check that
 * ends the request at once (one field, or a rule that needs what was read after the fields: the
 * channel's kind, the template catalog) throws `validation(message, [{ field, message }])` itself.
 * Either way every validation error names its field(s) in `details`.
 */
export class Issues {
  readonly list: FieldIssue[] = [];

  check(ok: boolean, field: string, message: string): this {
    if (!ok) this.list.push({ field, message });
    return this;
  }

  add(field: string, message: string): this {
    this.list.push({ field, message });
    return this;
  }

  get any(): boolean {
    return this.list.length > 0;
  }

  /** Throws ERR_VALIDATION (or `code`) naming every problem, when there is one. */
  throwIfAny(message: string, code?: string): void {
    if (this.any) throw validation(message, this.list, code);
  }
}

/** `notFound('ticket')` → ERR_TICKET_NOT_FOUND. */
export const notFound = (thing: string, message?: string) =>
  new DomainError(
    'not_found',
    `ERR_${thing.replace(/[^a-z0-9]+/gi, '_').toUpperCase()}_NOT_FOUND`,
    message ?? `${thing[0].toUpperCase()}${thing.slice(1)} not found`,
  );

export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
export const unauthenticated = (message = 'Missing or unknown token') => new DomainError('unauthenticated', 'ERR_UNAUTHORIZED', message);
export const forbidden = (message = 'This token may not be used here') => new DomainError('forbidden', 'ERR_FORBIDDEN', message);
export const providerFailed = (message: string, details?: unknown[]) =>
  new DomainError('provider', 'ERR_PROVIDER_FAILED', message, details);
export const payloadTooLarge = (message: string) => new DomainError('payload_too_large', 'ERR_PAYLOAD_TOO_LARGE', message);
