// Open-loop load at a fixed rate, for the answers' latency at a given rate (bench's "half of the
// peak"). Request i is due at start + i / rate whatever became of the requests before it, and its
// latency counts from when it was due: time spent waiting for a free connection counts too, so a
// stall is not hidden by the requests it kept from being sent (no coordinated omission).
//
// Written here rather than taken from autocannon, whose `overallRate` measures something else: it is
// closed-loop within each second (each connection sends its share of the second back to back as the
// second starts, then idles until the next), so its "half of the peak" is the peak for half of each
// second; and its correction for coordinated omission takes one request per millisecond as the
// expected interval (`Math.ceil(1 / rate)`), adding to each answer of T ms about T synthetic samples
// between 1 and T ms. Against a server answering in 10 ms, 1 request in 100 in 100 ms, at 50 req/s:
// autocannon p50 7 / p99 89 ms, the answers' own p50 11 / p99 39 ms.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface PacedResult {
  /** Requests sent. */
  requests: number;
  /** Answers other than 2xx, and requests that got no answer. */
  failures: number;
  /** Successful answers per second, from the first request's due time to the last answer. */
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The q-quantile of ascending values, by the nearest-rank method. */
export function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** One request of its own (a path and headers of its own, e.g. a signed body), instead of a body in turn. */
export interface PacedRequest {
  path?: string;
  headers?: Record<string, string>;
  body: string;
}

/**
 * POSTs `bodies` (in turn, or request i as `bodies(i, due)` makes it, `due` in performance.now()
 * time) to `url` at `rate` requests per second for `durationS`, over at most `connections`
 * kept-alive connections; answers the latency percentiles of the 2xx answers, in ms. `onAnswer`
 * hears each request's status (0: no answer).
 */
export async function pacedLoad(
  url: string,
  headers: Record<string, string>,
  bodies: string[] | ((i: number, due: number) => PacedRequest),
  opts: { rate: number; durationS: number; connections: number; timeoutMs?: number; onAnswer?: (i: number, status: number) => void },
): Promise<PacedResult> {
  const target = new URL(url);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const pool = new Pool(target.origin, { connections: opts.connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const latencies: number[] = [];
  let failures = 0;
  const send = async (i: number, due: number) => {
    const own = typeof bodies === 'function' ? bodies(i, due) : { body: bodies[i % bodies.length] };
    let status = 0;
    try {
      const res = await pool.request({
        path: own.path ?? target.pathname + target.search,
        method: 'POST',
        headers: { ...headers, ...own.headers },
        body: own.body,
      });
      await res.body.dump();
      status = res.statusCode;
      if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(performance.now() - due);
      else failures++;
    } catch {
      failures++;
    }
    opts.onAnswer?.(i, status);
  };
  const total = Math.max(1, Math.round(opts.rate * opts.durationS));
  const intervalMs = 1000 / opts.rate;
  const sent: Array<Promise<void>> = [];
  const start = performance.now();
  try {
    for (let i = 0; i < total; i++) {
      const due = start + i * intervalMs;
      const wait = due - performance.now();
      // Timers fire late by up to a millisecond or so: a request is sent once due, and any that
      // fell due meanwhile go at once, each timed from its own due time.
      if (wait >= 1) await sleep(wait);
      sent.push(send(i, due));
    }
    await Promise.all(sent);
  } finally {
    await pool.close();
  }
  const elapsedS = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const ms = (v: number) => Math.round(v * 10) / 10;
  return {
    requests: total,
    failures,
    rps: latencies.length / elapsedS,
    p50: ms(quantile(latencies, 0.5)),
    p90: ms(quantile(latencies, 0.9)),
    p99: ms(quantile(latencies, 0.99)),
    max: ms(latencies[latencies.length - 1] ?? NaN),
  };
}
