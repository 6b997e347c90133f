import { grpc, grpcToHttp, isServiceError } from '@convo/kit';
import { retryAfterMs } from '../backoff';

/** gRPC codes of a Deliver call that a later attempt may not meet (the engines service itself failed). */
const TRANSIENT_CODES = new Set([
  grpc.status.UNAVAILABLE,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.INTERNAL,
  grpc.status.UNKNOWN,
  grpc.status.CANCELLED,
  grpc.status.ABORTED,
]);

/** What the dispatcher does with a failed attempt: retry it (after `retryAfterMs` when the provider said), or fail the message. */
export interface Failure {
  transient: boolean;
  retryAfterMs: number | null;
  reason: string;
}

/** What a failed Deliver (or channel lookup) says about trying again. */
export function classify(err: unknown): Failure {
  if (!isServiceError(err)) return { transient: true, retryAfterMs: null, reason: err instanceof Error ? err.message : String(err) };
  const { body } = grpcToHttp(err);
  if (body.error === 'ERR_PROVIDER_FAILED') {
    const detail = body.details?.[0] as { transient?: boolean; retryAfter?: string } | undefined;
    return { transient: detail?.transient === true, retryAfterMs: retryAfterMs(detail?.retryAfter), reason: err.details };
  }
  return { transient: TRANSIENT_CODES.has(err.code), retryAfterMs: null, reason: `${body.error}: ${err.details}` };
}
