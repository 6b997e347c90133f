// Provider calls (every send a driver makes) by channel kind and outcome: sent, transient (a retry
// may fix it: unreachable, timeout, 5xx, 429) or refused (the provider said no; not retried).
import { counter, DomainError, histogram, secondsSinceMs } from '@convo/kit';

const LABELS = ['kind', 'outcome'] as const;
const calls = () =>
  counter({
    name: 'convo_provider_calls_total',
    help: 'Provider calls, by channel kind and outcome (sent, transient, refused).',
    labelNames: LABELS,
  });
const seconds = () =>
  histogram({
    name: 'convo_provider_call_duration_seconds',
    help: 'Provider call latency, by channel kind and outcome.',
    labelNames: LABELS,
  });

export type ProviderOutcome = 'sent' | 'transient' | 'refused';

/** A driver's failure that a retry may fix (drivers/http.ts marks it in details[0].transient). */
export const isTransient = (err: unknown): boolean =>
  err instanceof DomainError && Array.isArray(err.details) && (err.details[0] as { transient?: boolean } | undefined)?.transient === true;

export function observeProviderCall(kind: string, outcome: ProviderOutcome, startedAtMs: number): void {
  calls().inc({ kind, outcome });
  seconds().observe({ kind, outcome }, secondsSinceMs(startedAtMs));
}
