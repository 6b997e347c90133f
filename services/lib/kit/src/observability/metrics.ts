// The process's Prometheus registry. Every process of the mesh (the gateway, each service, the
// messaging workers) exposes it at /metrics on its HTTP port; the series names are listed in the
// docs/operations.md ("Metrics"). Metrics are created through the helpers below, which hand back the metric
// already registered under that name: several modules (or several services started in one test
// process) may ask for the same series without "already registered" errors.
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  register,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

export const metricsRegistry = register;
export const METRICS_CONTENT_TYPE = register.contentType;

/** Seconds; from 5 ms (a cache-served read) to 10 s (a provider deadline). */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let defaultsCollected = false;

/**
 * The Node.js process metrics (CPU, memory, handles, `nodejs_eventloop_lag_seconds`,
 * `nodejs_gc_duration_seconds`), once per process whoever asks first.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register, eventLoopMonitoringPrecision: 20 });
}

export function counter<L extends string>(config: CounterConfiguration<L>): Counter<L> {
  return (register.getSingleMetric(config.name) as Counter<L> | undefined) ?? new Counter({ ...config, registers: [register] });
}

export function histogram<L extends string>(config: HistogramConfiguration<L>): Histogram<L> {
  return (
    (register.getSingleMetric(config.name) as Histogram<L> | undefined) ??
    new Histogram({ buckets: LATENCY_BUCKETS, ...config, registers: [register] })
  );
}

export function gauge<L extends string>(config: GaugeConfiguration<L>): Gauge<L> {
  return (register.getSingleMetric(config.name) as Gauge<L> | undefined) ?? new Gauge({ ...config, registers: [register] });
}

/** The exposition text of every metric of this process. */
export async function metricsText(): Promise<string> {
  collectProcessMetrics();
  return register.metrics();
}

/** Seconds since `startNs` (process.hrtime.bigint()). */
export const secondsSince = (startNs: bigint): number => Number(process.hrtime.bigint() - startNs) / 1e9;

/** Seconds since `startedAtMs` (Date.now()). */
export const secondsSinceMs = (startedAtMs: number): number => (Date.now() - startedAtMs) / 1000;
