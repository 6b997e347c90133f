import type { ServiceClient } from '@convo/kit';
import { errCode, rpcError, startTestMesh, type TestMesh } from '@convo/test-support';
import { tenantsService } from '@convo/tenants';
import type { Connection } from 'mongoose';
import { socialConfigService } from '../src/spec';

// The real tenants service owns the channels; social-config asks it whether a channel is the tenant's.
let mesh: TestMesh;
let client: ServiceClient<'socialConfig'>;
let db: Connection;
let tenantId: number;
let otherTenantId: number;
const channels: number[] = [];
let theirChannel: number;

beforeAll(async () => {
  mesh = await startTestMesh('social-config-test');
  const tenantsSvc = await mesh.start(tenantsService);
  const svc = await mesh.start(socialConfigService, { env: { TENANTS_GRPC_ADDR: tenantsSvc.address } });
  client = svc.client;
  db = svc.db;
  const tenants = tenantsSvc.client;
  const newTenant = async (name: string) =>
    (
      await tenants.StoreTenant({
        status: 'active',
        name,
        maxUsers: 5,
        maxConnections: 9,
        acceptTerms: true,
        email: `owner@${name.toLowerCase()}.profiles.example`,
        password: 'secret-pass1',
        userName: 'Owner',
        profile: 'admin',
      })
    ).tenant!.id;
  [tenantId, otherTenantId] = [await newTenant('Acme'), await newTenant('Other')];
  const channel = async (tenant: number, page: string) =>
    (await tenants.CreateSession({ tenant, name: page, type: 'social_b', pageId: page, pageToken: 'fb-token' })).whatsapp!.id;
  for (const page of ['P-1', 'P-2', 'P-3']) channels.push(await channel(tenantId, page));
  theirChannel = await channel(otherTenantId, 'P-4');
});

afterAll(() => mesh?.stop());

const configure = (tenant: number, channelId: number) =>
  db.collection('channel_profiles').insertOne({
    _id: channelId as never,
    tenantId: tenant,
    iceBreakers: [{ question: 'Where is my order?', payload: 'ORDER' }],
    greetings: [{ locale: 'pt_BR', text: 'Olá!' }],
    updatedAt: new Date('2026-01-02T03:04:05Z'),
  });

describe('GetProfile', () => {
  it('answers an empty profile for a channel of the tenant never configured, echoing its ids', async () => {
    await expect(client.GetProfile({ tenantId, channelId: channels[0] })).resolves.toEqual({
      channelId: channels[0],
      tenantId,
      iceBreakers: [],
      greetings: [],
      updatedAt: new Date(0).toISOString(),
    });
  });

  it("answers a channel's configured ice breakers and greetings", async () => {
    await configure(tenantId, channels[1]);
    await expect(client.GetProfile({ tenantId, channelId: channels[1] })).resolves.toEqual({
      channelId: channels[1],
      tenantId,
      iceBreakers: [{ question: 'Where is my order?', payload: 'ORDER' }],
      greetings: [{ locale: 'pt_BR', text: 'Olá!' }],
      updatedAt: '2026-01-02T03:04:05.000Z',
    });
  });

  it("never shows one tenant's profile to another: another tenant's channel or none is not found", async () => {
    await configure(otherTenantId, theirChannel);
    for (const channelId of [theirChannel, 2_000_000_000]) {
      expect(errCode(await rpcError(client.GetProfile({ tenantId, channelId })))).toBe('ERR_CHANNEL_NOT_FOUND');
    }
    await expect(client.GetProfile({ tenantId: otherTenantId, channelId: theirChannel })).resolves.toMatchObject({
      tenantId: otherTenantId,
      greetings: [{ text: 'Olá!' }],
    });
  });
});
