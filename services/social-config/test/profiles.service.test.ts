import type { ServiceClient } from '@convo/kit';
import { startServiceForTest, type TestService } from '@convo/test-support';
import { socialConfigService } from '../src/spec';

let svc: TestService<'socialConfig'>;
let client: ServiceClient<'socialConfig'>;

beforeAll(async () => {
  svc = await startServiceForTest(socialConfigService, { name: 'social-config-test' });
  client = svc.client;
});

afterAll(() => svc?.stop());

const configure = (tenantId: number, channelId: number) =>
  svc.db.collection('channel_profiles').insertOne({
    _id: channelId as never,
    tenantId,
    iceBreakers: [{ question: 'Where is my order?', payload: 'ORDER' }],
    greetings: [{ locale: 'pt_BR', text: 'Olá!' }],
    updatedAt: new Date('2026-01-02T03:04:05Z'),
  });

describe('GetProfile', () => {
  it('answers an empty profile for a channel never configured, echoing its ids', async () => {
    await expect(client.GetProfile({ tenantId: 3, channelId: 41 })).resolves.toEqual({
      channelId: 41,
      tenantId: 3,
      iceBreakers: [],
      greetings: [],
      updatedAt: new Date(0).toISOString(),
    });
  });

  it("answers a channel's configured ice breakers and greetings", async () => {
    await configure(3, 42);
    await expect(client.GetProfile({ tenantId: 3, channelId: 42 })).resolves.toEqual({
      channelId: 42,
      tenantId: 3,
      iceBreakers: [{ question: 'Where is my order?', payload: 'ORDER' }],
      greetings: [{ locale: 'pt_BR', text: 'Olá!' }],
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it("never shows one tenant's profile to another", async () => {
    await configure(3, 43);
    await expect(client.GetProfile({ tenantId: 4, channelId: 43 })).resolves.toMatchObject({
      channelId: 43,
      tenantId: 4,
      iceBreakers: [],
      greetings: [],
    });
  });
});
