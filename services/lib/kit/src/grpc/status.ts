import * as grpc from '@grpc/grpc-js';
import { DomainError, type ErrorKind } from '../errors';

const { status: S } = grpc;

const KIND_TO_GRPC: Record<ErrorKind, grpc.status> = {
  validation: S.INVALID_ARGUMENT,
  unauthenticated: S.UNAUTHENTICATED,
  forbidden: S.PERMISSION_DENIED,
  not_found: S.NOT_FOUND,
  conflict: S.ABORTED,
  rate_limited: S.RESOURCE_EXHAUSTED,
  payload_too_large: S.OUT_OF_RANGE,
  unsupported_media: S.INVALID_ARGUMENT,
  provider: S.UNAVAILABLE,
  unavailable: S.UNAVAILABLE,
  internal: S.INTERNAL,
};

/** The standard gRPC → HTTP table (as grpc-gateway's runtime/errors.go). */
export const GRPC_TO_HTTP: Record<grpc.status, number> = {
  [S.OK]: 200,
  [S.CANCELLED]: 499,
  [S.UNKNOWN]: 500,
  [S.INVALID_ARGUMENT]: 400,
  [S.DEADLINE_EXCEEDED]: 504,
  [S.NOT_FOUND]: 404,
  [S.ALREADY_EXISTS]: 409,
  [S.PERMISSION_DENIED]: 403,
  [S.RESOURCE_EXHAUSTED]: 429,
  [S.FAILED_PRECONDITION]: 400,
  [S.ABORTED]: 409,
  [S.OUT_OF_RANGE]: 400,
  [S.UNIMPLEMENTED]: 501,
  [S.INTERNAL]: 500,
  [S.UNAVAILABLE]: 503,
  [S.DATA_LOSS]: 500,
  [S.UNAUTHENTICATED]: 401,
};

/**
 * Error codes whose HTTP status the gRPC code cannot express (gRPC has no 413, 415 or 502).
 * The code travels in trailing metadata, so it wins over the table.
 */
export const CODE_TO_HTTP: Record<string, number> = {
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_PROVIDER_FAILED: 502,
};

/**
 * `Retry-After` (seconds) of the answers that say "try again later". 503: a service is down or
 * starting; its clients reconnect within 5 s of it coming back (grpc/client.ts).
 */
export const RETRY_AFTER_SECONDS: Partial<Record<number, number>> = {
  503: 5,
};

const DEFAULT_CODE: Partial<Record<grpc.status, string>> = {
  [S.INVALID_ARGUMENT]: 'ERR_VALIDATION',
  [S.NOT_FOUND]: 'ERR_NOT_FOUND',
  [S.UNAUTHENTICATED]: 'ERR_UNAUTHORIZED',
  [S.PERMISSION_DENIED]: 'ERR_FORBIDDEN',
  [S.RESOURCE_EXHAUSTED]: 'ERR_RATE_LIMITED',
  [S.ABORTED]: 'ERR_CONFLICT',
  [S.ALREADY_EXISTS]: 'ERR_CONFLICT',
  [S.DEADLINE_EXCEEDED]: 'ERR_TIMEOUT',
  [S.UNAVAILABLE]: 'ERR_UNAVAILABLE',
  [S.UNIMPLEMENTED]: 'ERR_NOT_IMPLEMENTED',
};

const CODE_KEY = 'err-code';
const DETAILS_KEY = 'err-details-bin';

export const isServiceError = (err: unknown): err is grpc.ServiceError =>
  err instanceof Error && typeof (err as grpc.ServiceError).code === 'number' && 'metadata' in err;

/** What a gRPC handler sends back for a thrown error. */
export function toGrpcError(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof DomainError) {
    const metadata = new grpc.Metadata();
    metadata.set(CODE_KEY, err.code);
    if (err.details?.length) metadata.set(DETAILS_KEY, Buffer.from(JSON.stringify(err.details)));
    return { code: KIND_TO_GRPC[err.kind], details: err.message, metadata };
  }
  // A downstream service's status passes through unchanged, code and details included.
  if (isServiceError(err)) return { code: err.code, details: err.details, metadata: err.metadata };
  return { code: S.INTERNAL, details: 'Internal error' };
}

export interface HttpError {
  status: number;
  body: { success: false; error: string; message: string; details?: unknown[] };
  /** Response headers the status calls for (`retry-after`); absent when none. */
  headers?: Record<string, string>;
}

/** Adds the headers that belong to a status: one place for every answer of the facade. */
function withHeaders(err: HttpError): HttpError {
  const retryAfter = RETRY_AFTER_SECONDS[err.status];
  return retryAfter === undefined ? err : { ...err, headers: { 'retry-after': String(retryAfter) } };
}

/** What the REST facade answers for a failed gRPC call. */
export function grpcToHttp(err: unknown): HttpError {
  if (!isServiceError(err)) {
    return { status: 500, body: { success: false, error: 'ERR_INTERNAL', message: 'Internal error' } };
  }
  const code = (err.metadata?.get(CODE_KEY)[0] as string | undefined) ?? DEFAULT_CODE[err.code] ?? 'ERR_INTERNAL';
  const rawDetails = err.metadata?.get(DETAILS_KEY)[0];
  const details = Buffer.isBuffer(rawDetails) ? (JSON.parse(rawDetails.toString('utf8')) as unknown[]) : undefined;
  const status = CODE_TO_HTTP[code] ?? GRPC_TO_HTTP[err.code] ?? 500;
  const message = status >= 500 && !err.metadata?.get(CODE_KEY).length ? 'Service unavailable or failed' : err.details;
  return withHeaders({ status, body: { success: false, error: code, message, ...(details ? { details } : {}) } });
}

/** A domain error raised in the REST facade itself, mapped through the same tables. */
export function domainToHttp(err: DomainError): HttpError {
  const status = CODE_TO_HTTP[err.code] ?? GRPC_TO_HTTP[KIND_TO_GRPC[err.kind]];
  return withHeaders({
    status,
    body: { success: false, error: err.code, message: err.message, ...(err.details?.length ? { details: err.details } : {}) },
  });
}

/** A call's failure carried as a message field (an item of a stream): what the status and trailers would say. */
export interface StatusFields {
  code: number;
  message: string;
  errorCode: string;
  detailsJson: string;
}

/** A thrown error as the status a unary handler would have sent (toGrpcError), in message fields. */
export function toStatusFields(err: unknown): StatusFields {
  const status = toGrpcError(err);
  const details = status.metadata?.get(DETAILS_KEY)[0];
  return {
    code: status.code ?? S.INTERNAL,
    message: status.details ?? '',
    errorCode: String(status.metadata?.get(CODE_KEY)[0] ?? ''),
    detailsJson: Buffer.isBuffer(details) ? details.toString('utf8') : '',
  };
}

/** The ServiceError a unary call would have failed with, from its status in message fields. */
export function fromStatusFields(fields: StatusFields): grpc.ServiceError {
  const metadata = new grpc.Metadata();
  if (fields.errorCode) metadata.set(CODE_KEY, fields.errorCode);
  if (fields.detailsJson) metadata.set(DETAILS_KEY, Buffer.from(fields.detailsJson, 'utf8'));
  return Object.assign(new Error(`${fields.code} ${S[fields.code] ?? 'UNKNOWN'}: ${fields.message}`), {
    code: fields.code,
    details: fields.message,
    metadata,
  }) as grpc.ServiceError;
}
