import { DomainError } from '../src/errors';
import { safeRequestWith } from '../src/net/safe-http';

const OPTIONS = { connectTimeoutMs: 2_000, totalTimeoutMs: 3_000, maxBytes: 1024 };
const failing = (code: string) => async () => {
  throw Object.assign(new Error(`getaddrinfo ${code} example.test`), { code });
};

describe('safeRequest and DNS failures', () => {
  it('answers a name without addresses (ENODATA) as the caller’s mistake, like ENOTFOUND', async () => {
    const err = await safeRequestWith('http://nothing-here.example.test/a.png', OPTIONS, { resolve: failing('ENODATA') }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'validation', code: 'ERR_URL_UNRESOLVED' });
  });

  it('keeps a DNS server that does not answer a network failure, to be retried', async () => {
    const err = await safeRequestWith('http://slow-dns.example.test/a.png', OPTIONS, { resolve: failing('EAI_AGAIN') }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind: 'provider', code: 'ERR_FETCH_FAILED' });
  });
});
