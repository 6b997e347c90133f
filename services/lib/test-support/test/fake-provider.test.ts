import { request } from 'node:http';
import { startFakeProvider, type FakeProvider } from '../src/fake-provider';

/** A plain HTTP call with a short timeout: status and body, or the error that ended it. */
function call(url: string, body?: string): Promise<{ status: number; body: string } | Error> {
  return new Promise((resolve) => {
    const req = request(
      url,
      { method: body === undefined ? 'GET' : 'POST', headers: { authorization: 'Bearer t' }, timeout: 300 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        res.on('error', resolve);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', resolve);
    req.end(body);
  });
}

describe('startFakeProvider', () => {
  let provider: FakeProvider;
  beforeAll(async () => {
    provider = await startFakeProvider();
  });
  afterAll(() => provider.close());
  beforeEach(() => provider.reset());

  it('records each request as sent, JSON bodies parsed and others kept as text', async () => {
    await call(`${provider.url}/messages?x=1`, '{"to":"5511"}');
    await call(`${provider.url}/plain`, 'not json');
    await call(`${provider.url}/empty`);
    expect(provider.requests.map(({ method, url, body, raw }) => ({ method, url, body, raw }))).toEqual([
      { method: 'POST', url: '/messages?x=1', body: { to: '5511' }, raw: '{"to":"5511"}' },
      { method: 'POST', url: '/plain', body: 'not json', raw: 'not json' },
      { method: 'GET', url: '/empty', body: '', raw: '' },
    ]);
    expect(provider.requests[0].headers.authorization).toBe('Bearer t');
  });

  it('answers 200 {} by default, then as told until reset', async () => {
    expect(await call(provider.url)).toEqual({ status: 200, body: '{}' });
    provider.answer((req) => ({ status: 502, body: { got: req.url } }));
    expect(await call(`${provider.url}/x`)).toEqual({ status: 502, body: '{"got":"/x"}' });
    provider.reset();
    expect(provider.requests).toEqual([]);
    expect(await call(provider.url)).toEqual({ status: 200, body: '{}' });
  });

  it('can hang, or stop in the middle of a body', async () => {
    provider.answer(() => 'hang');
    expect(await call(provider.url)).toBeInstanceOf(Error);
    provider.answer(() => 'stall');
    expect(await call(provider.url)).toBeInstanceOf(Error);
    expect(provider.requests).toHaveLength(2);
  });

  it('records the requests a client hung up on before the answer was complete, and only those', async () => {
    expect(await call(`${provider.url}/answered`)).toEqual({ status: 200, body: '{}' });
    provider.answer(() => 'hang');
    expect(await call(`${provider.url}/hung`)).toBeInstanceOf(Error);
    provider.answer(() => 'stall');
    expect(await call(`${provider.url}/stalled`)).toBeInstanceOf(Error);
    await provider.hangUps(2);
    expect(provider.hungUp.map((r) => r.url)).toEqual(['/hung', '/stalled']);
    provider.reset();
    expect(provider.hungUp).toEqual([]);
  });
});
