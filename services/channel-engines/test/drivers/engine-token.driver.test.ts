import { startFakeProvider, type FakeProvider } from '@convo/test-support';
import { contentOf, failure } from '../support/driver-fixtures';
import { ANY_ANSWER, caseChannel, type DriverCase, driverCases } from '../support/driver-cases';

// An engine channel without its own engineToken uses ENGINE_TOKEN_<KIND>, else ENGINE_TOKEN (the
// engine server's installation-wide key), sent in the header that engine reads. A server that
// refuses every call without a key gets no call at all when neither is set.

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider(() => ({ status: 200, body: ANY_ANSWER }));
});
afterAll(() => provider.close());
beforeEach(() => provider.reset());

/** Each kind: the header its engine reads the key from, how the key is written there, and whether its server needs one. */
const HEADERS: Array<[string, string, (key: string) => string, boolean]> = [
  ['engine_a', 'authorization', (k) => `Bearer ${k}`, false],
  ['engine_b', 'apikey', (k) => k, true],
  ['engine_c', 'token', (k) => k, true],
  ['engine_d', 'token', (k) => k, true],
  ['engine_e', 'authorization', (k) => `Bearer ${k}`, true],
  ['engine_f', 'client-token', (k) => k, false],
  ['engine_g', 'x-api-key', (k) => k, false],
  ['engine_h', 'apikey', (k) => k, true],
  ['whatsapp', 'x-api-key', (k) => k, false],
];

const tokens = (byKind: Record<string, string>, fallback = '') => ({ engineToken: (kind: string) => byKind[kind] || fallback });
const send = (c: DriverCase, engineToken: string) =>
  c.driver().send({
    channel: { ...caseChannel(provider.url, c), engineToken },
    to: '5511987654321',
    content: contentOf({ text: 'Hi' }),
    reference: 'msg-1',
  });
const headerSeen = (name: string) => {
  expect(provider.requests).toHaveLength(1);
  return provider.requests[0].headers[name];
};

describe('engine keys: the channel’s, else ENGINE_TOKEN_<KIND>, else ENGINE_TOKEN', () => {
  it.each(HEADERS)('%s sends ENGINE_TOKEN_<KIND> in %s when the channel has no key', async (kind, header, written) => {
    const cases = driverCases(() => provider.url, tokens({ [kind]: 'kind-key' }, 'global-key'));
    await send(cases[kind], '');
    expect(headerSeen(header)).toBe(written('kind-key'));
  });

  it.each(HEADERS)('%s sends ENGINE_TOKEN in %s when neither the channel nor its kind has a key', async (kind, header, written) => {
    const cases = driverCases(() => provider.url, tokens({}, 'global-key'));
    await send(cases[kind], '');
    expect(headerSeen(header)).toBe(written('global-key'));
  });

  it.each(HEADERS)('%s sends the channel’s own key in %s over both settings', async (kind, header, written) => {
    const cases = driverCases(() => provider.url, tokens({ [kind]: 'kind-key' }, 'global-key'));
    await send(cases[kind], 'channel-key');
    expect(headerSeen(header)).toBe(written('channel-key'));
  });

  it.each(HEADERS.filter(([, , , required]) => required))(
    '%s: without any key nothing is sent and the error names engineToken',
    async (kind) => {
      const cases = driverCases(() => provider.url);
      const err = await failure(send(cases[kind], ''));
      expect(err.code).toBe('ERR_PROVIDER_FAILED');
      expect(err.message).toContain(`ENGINE_TOKEN_${kind.toUpperCase()}`);
      expect(err.details).toEqual([expect.objectContaining({ field: 'engineToken' })]);
      expect(provider.requests).toEqual([]);
    },
  );

  it.each(HEADERS.filter(([, , , required]) => !required))(
    '%s: a server that takes calls without a key gets one without the header',
    async (kind, header) => {
      const cases = driverCases(() => provider.url);
      await send(cases[kind], '');
      expect(headerSeen(header)).toBeUndefined();
    },
  );
});
