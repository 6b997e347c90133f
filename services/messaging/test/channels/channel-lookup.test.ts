import { grpc, type proto, type ServiceClient } from '@convo/kit';
import { ANY_TENANT, ChannelLookup } from '../../src/channels/channel-lookup';

// The one channel cache of a messaging process, against a tenants stand-in that counts its reads.

type Channel = proto.tenants.Channel__Output;

const notFound = () =>
  Object.assign(new Error('channel not found'), { code: grpc.status.NOT_FOUND, details: 'not found', metadata: new grpc.Metadata() });

function tenantsWith(channels: Channel[]) {
  const reads: string[] = [];
  const tenants = {
    GetChannel: async ({ tenantId, channelId }: { tenantId: number; channelId: number }) => {
      reads.push(`${tenantId}:${channelId}`);
      const found = channels.find((c) => c.id === channelId && (tenantId === ANY_TENANT || c.tenantId === tenantId));
      if (!found) throw notFound();
      return { ...found };
    },
    FindChannelByAccount: async ({ type, accountId }: { type: string; accountId: string }) => {
      reads.push(`${type}:${accountId}`);
      const found = channels.find((c) => c.type === type && c.pageId === accountId);
      if (!found) throw notFound();
      return { ...found };
    },
  } as unknown as Pick<ServiceClient<'tenants'>, 'GetChannel' | 'FindChannelByAccount'>;
  return { tenants, reads };
}

const channel = (over: Partial<Channel>) => ({ id: 1, tenantId: 1, type: 'waba', status: 'CONNECTED', pageId: '', ...over }) as Channel;

describe('ChannelLookup', () => {
  it('reads a channel once for the callers that miss it together, and keeps it', async () => {
    const { tenants, reads } = tenantsWith([channel({ id: 3 })]);
    const lookup = new ChannelLookup(tenants, 60_000);
    const [a, b] = await Promise.all([lookup.get(1, 3), lookup.get(1, 3)]);
    expect(a).toBe(b);
    await lookup.get(1, 3);
    expect(reads).toEqual(['1:3']);
  });

  it("keeps no missing channel: a channel created after a miss is found at the next ask, and another tenant's is not found", async () => {
    const channels: Channel[] = [];
    const { tenants, reads } = tenantsWith(channels);
    const lookup = new ChannelLookup(tenants, 60_000);
    expect(await lookup.find(1, 3)).toBeNull();
    await expect(lookup.byAccount('waba', 'PN1')).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    channels.push(channel({ id: 3, pageId: 'PN1' }));
    expect((await lookup.find(1, 3))?.id).toBe(3);
    expect((await lookup.byAccount('waba', 'PN1')).id).toBe(3);
    expect(await lookup.find(2, 3)).toBeNull();
    expect(reads).toEqual(['1:3', 'waba:PN1', '1:3', 'waba:PN1', '2:3']);
  });

  it('serves nothing kept from before a change this process made, and keeps the channel the change answered', async () => {
    const channels = [channel({ id: 3, status: 'CONNECTED', pageId: 'PN1' })];
    const { tenants, reads } = tenantsWith(channels);
    const lookup = new ChannelLookup(tenants, 60_000);
    await Promise.all([lookup.get(1, 3), lookup.get(ANY_TENANT, 3), lookup.byAccount('waba', 'PN1')]);
    channels[0] = { ...channels[0], status: 'DISCONNECTED' };
    lookup.changed({ ...channels[0] });
    expect((await lookup.get(1, 3)).status).toBe('DISCONNECTED');
    expect((await lookup.get(ANY_TENANT, 3)).status).toBe('DISCONNECTED');
    expect((await lookup.byAccount('waba', 'PN1')).status).toBe('DISCONNECTED');
    // The two by id were kept from the change; the account's was read again.
    expect(reads).toEqual(['1:3', '0:3', 'waba:PN1', 'waba:PN1']);
    lookup.changed();
    await lookup.get(1, 3);
    expect(reads.at(-1)).toBe('1:3');
  });

  it('does not keep what a read under way at the change brings back', async () => {
    const { tenants, reads } = tenantsWith([channel({ id: 3 })]);
    const lookup = new ChannelLookup(tenants, 60_000);
    const before = lookup.get(1, 3);
    lookup.changed();
    await before;
    await lookup.get(1, 3);
    expect(reads).toEqual(['1:3', '1:3']);
  });

  it('keeps nothing with a time to live of 0', async () => {
    const { tenants, reads } = tenantsWith([channel({ id: 3 })]);
    const lookup = new ChannelLookup(tenants, 0);
    await lookup.get(1, 3);
    await lookup.get(1, 3);
    expect(reads).toHaveLength(2);
  });
});
