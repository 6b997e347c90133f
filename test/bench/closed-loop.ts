// Closed-loop load that keeps every answer's time: `connections` senders, each sending its next
// request when the last one was answered, for `durationS`. The join bench (join.ts) counts the
// answers in windows of the run (its first seconds, the same seconds a minute later).
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

export interface ClosedLoopResult {
  /** performance.now() of each 2xx answer, in the order they came. */
  answeredAt: number[];
  failures: number;
  startedAt: number;
}

export async function closedLoop(
  url: string,
  headers: Record<string, string>,
  bodies: string[],
  opts: { connections: number; durationS: number; timeoutMs?: number },
): Promise<ClosedLoopResult> {
  const target = new URL(url);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const pool = new Pool(target.origin, { connections: opts.connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const answeredAt: number[] = [];
  let failures = 0;
  let next = 0;
  const startedAt = performance.now();
  const until = startedAt + opts.durationS * 1000;
  const sender = async () => {
    while (performance.now() < until) {
      try {
        const res = await pool.request({
          path: target.pathname + target.search,
          method: 'POST',
          headers,
          body: bodies[next++ % bodies.length],
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) answeredAt.push(performance.now());
        else failures++;
      } catch {
        failures++;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.connections }, sender));
  } finally {
    await pool.close();
  }
  return { answeredAt, failures, startedAt };
}

/** Answers per second between `fromS` and `toS` seconds after `origin`. */
export const rateIn = (answeredAt: number[], origin: number, fromS: number, toS: number): number =>
  answeredAt.filter((t) => t >= origin + fromS * 1000 && t < origin + toS * 1000).length / (toS - fromS);
