import { createServer, type AddressInfo } from 'node:net';
import { backoffDelay, connectDatabase, DATABASE_RETRY } from '../src/mongo';

describe('connectDatabase', () => {
  it('backs off 0.5 s, doubling, capped at 10 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffDelay(n))).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
    expect(DATABASE_RETRY).toEqual({ initialMs: 500, maxMs: 10_000 });
  });

  it('keeps retrying an unreachable server until told to stop', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));

    const warnings: unknown[] = [];
    const log = { warn: (o: unknown) => warnings.push(o), info: () => undefined } as never;
    const stop = new AbortController();
    const attempt = connectDatabase(`mongodb://127.0.0.1:${port}/`, 'x', {
      log,
      signal: stop.signal,
      serverSelectionTimeoutMs: 200,
      retry: { initialMs: 50, maxMs: 100 },
    });
    let settled = false;
    attempt.catch(() => undefined).finally(() => (settled = true));
    while (warnings.length < 3) await new Promise((r) => setTimeout(r, 50));
    expect(settled).toBe(false);
    expect(warnings[0]).toMatchObject({ database: 'x', attempt: 1, retryInMs: 50 });
    expect(warnings[2]).toMatchObject({ attempt: 3, retryInMs: 100 });

    stop.abort(new Error('SIGTERM during start-up'));
    await expect(attempt).rejects.toThrow('SIGTERM during start-up');
  });

  it('refuses a URI it cannot use at once: no retry fixes a configuration error', async () => {
    await expect(connectDatabase('not-a-mongodb-uri', 'x')).rejects.toMatchObject({ name: 'MongoParseError' });
  });
});
