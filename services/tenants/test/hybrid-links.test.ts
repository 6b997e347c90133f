import { engineSession, startHarness, tenantRequest, wabaSession, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-hybrid-test');
});

afterAll(async () => {
  await h?.stop();
});

const newTenant = async () => (await h.client.StoreTenant(tenantRequest({ maxConnections: 0 }))).tenant!.id;
const engine = async (tenant: number, over: Record<string, unknown> = {}) => await h.client.CreateSession(engineSession(tenant, over));
const waba = (tenant: number, over: Record<string, unknown> = {}) => h.client.CreateSession(wabaSession(tenant, over));
const engineId = async (tenant: number, type = 'engine_a') => (await engine(tenant, { type })).whatsapp!.id;
const channel = (id: number) => h.svc.db.collection('channels').findOne({ _id: id as never });
const put = (id: number, over: Record<string, unknown>) => h.client.UpdateChannel({ id, ...over });
/** The id the next channel will get (ids come from one installation-wide counter). */
const nextChannelId = async () => ((await h.svc.db.collection('counters').findOne({ _id: 'channel' as never }))?.seq ?? 0) + 1;

const failedWith = (error: string) => ({ present: true, applied: false, error });

describe('hybrid links on tenantApiCreateSession', () => {
  it('leaves hybrid out when no link field is given', async () => {
    const t = await newTenant();
    expect((await waba(t)).hybrid).toMatchObject({ present: false });
  });

  it('links a new waba channel to an unofficial transport', async () => {
    const t = await newTenant();
    const e = await engineId(t);
    const res = await waba(t, { hybridMode: 'coexistence', linkedChannelId: String(e) });

    expect(res.hybrid).toMatchObject({
      present: true,
      applied: true,
      whatsappId: res.whatsapp!.id,
      hybridMode: 'coexistence',
      linkedChannelId: e,
    });
    expect(res.whatsapp).toMatchObject({ hybridMode: 'coexistence', linkedChannelId: e });
  });

  it('stores two_numbers without a link, and any unofficial engine as its second number', async () => {
    const t = await newTenant();
    expect((await waba(t, { hybridMode: 'two_numbers' })).hybrid).toMatchObject({ applied: true, hybridMode: 'two_numbers' });
    const d = await engineId(t, 'engine_d');
    expect((await waba(t, { hybridMode: 'two_numbers', linkedChannelId: String(d) })).hybrid).toMatchObject({
      applied: true,
      linkedChannelId: d,
    });
  });

  it('links a new unofficial channel to an existing waba with linkToWhatsappId', async () => {
    const t = await newTenant();
    const w = (await waba(t)).whatsapp!.id;
    const res = await engine(t, { type: 'engine_g', linkToWhatsappId: String(w), hybridMode: 'coexistence' });

    expect(res.hybrid).toMatchObject({ applied: true, whatsappId: w, hybridMode: 'coexistence', linkedChannelId: res.whatsapp!.id });
    expect(await channel(w)).toMatchObject({ hybridMode: 'coexistence', linkedChannelId: res.whatsapp!.id });
    expect(res.whatsapp!.hybridMode).toBe('disabled');
  });

  it('stores the link with diversion off when linkToWhatsappId comes without hybridMode', async () => {
    const t = await newTenant();
    const w = (await waba(t)).whatsapp!.id;
    const res = await engine(t, { linkToWhatsappId: String(w) });
    expect(res.hybrid).toMatchObject({ applied: true, whatsappId: w, hybridMode: 'disabled' });
    expect(await channel(w)).toMatchObject({ hybridMode: 'disabled', linkedChannelId: res.whatsapp!.id });
  });

  describe('reports every seed error in data.hybrid and still creates the channel and its API', () => {
    let t: number;
    let other: number;
    beforeAll(async () => {
      t = await newTenant();
      other = await newTenant();
    });

    const cases: Array<[string, () => Promise<Record<string, unknown>>, 'waba' | 'engine']> = [
      ['ERR_HYBRID_INVALID_MODE', async () => ({ hybridMode: 'hybrid' }), 'waba'],
      ['ERR_HYBRID_ONLY_WABA', async () => ({ hybridMode: 'two_numbers' }), 'engine'],
      ['ERR_HYBRID_LINKED_SELF', async () => ({ linkedChannelId: String(await nextChannelId()) }), 'waba'],
      ['ERR_HYBRID_LINKED_NOT_FOUND', async () => ({ linkedChannelId: '999999' }), 'waba'],
      ['ERR_HYBRID_LINKED_NOT_FOUND', async () => ({ linkedChannelId: String(await engineId(other)) }), 'waba'],
      ['ERR_HYBRID_COEXISTENCE_REQUIRES_LINKED', async () => ({ hybridMode: 'coexistence' }), 'waba'],
      [
        'ERR_HYBRID_COEXISTENCE_LINKED_TYPE',
        async () => ({ hybridMode: 'coexistence', linkedChannelId: String(await engineId(t, 'engine_d')) }),
        'waba',
      ],
      ['ERR_HYBRID_INVALID_ID_LINK_TO', async () => ({ linkToWhatsappId: 'abc' }), 'engine'],
      ['ERR_HYBRID_INVALID_ID_LINK_TO', async () => ({ linkToWhatsappId: String(await engineId(t)) }), 'engine'],
      ['ERR_HYBRID_INVALID_ID_LINK_TO', async () => ({ linkToWhatsappId: '1' }), 'waba'],
      ['ERR_HYBRID_INVALID_ID_LINKED_CHANNEL', async () => ({ linkedChannelId: '12.5' }), 'waba'],
      [
        'ERR_HYBRID_INVALID_ID_LINKED_CHANNEL',
        async () => ({ linkedChannelId: String((await engine(t, { type: 'webchat' })).whatsapp!.id) }),
        'waba',
      ],
      ['ERR_HYBRID_INVALID_ID_LINKED_CHANNEL', async () => ({ linkedChannelId: '1' }), 'engine'],
      ['ERR_NO_WAPP_FOUND', async () => ({ linkToWhatsappId: '999999' }), 'engine'],
      ['ERR_NO_WAPP_FOUND', async () => ({ linkToWhatsappId: String((await waba(other)).whatsapp!.id) }), 'engine'],
      ['ERR_HYBRID_LINKED_SELF', async () => ({ linkToWhatsappId: String(await nextChannelId()) }), 'engine'],
    ];

    it.each(cases)('%s', async (error, fields, kind) => {
      const input = await fields();
      const res = kind === 'waba' ? await waba(t, input) : await engine(t, input);
      expect(res.hybrid).toMatchObject(failedWith(error));
      expect(res.whatsapp).toMatchObject({ id: expect.any(Number), hybridMode: 'disabled' });
      expect(res.whatsapp!.linkedChannelId).toBeUndefined();
      expect(res.api!.authToken).toHaveLength(43);
      expect(await channel(res.whatsapp!.id)).not.toBeNull();
    });
  });

  it('is one to one: a transport or a waba already linked is in use', async () => {
    const t = await newTenant();
    const e = await engineId(t);
    const w1 = (await waba(t, { linkedChannelId: String(e) })).whatsapp!.id;

    expect((await waba(t, { linkedChannelId: String(e) })).hybrid).toMatchObject(failedWith('ERR_HYBRID_LINKED_IN_USE'));
    expect((await engine(t, { linkToWhatsappId: String(w1) })).hybrid).toMatchObject(failedWith('ERR_HYBRID_LINKED_IN_USE'));
  });

  it('gives back the claims of a failed link, so the channel can be linked later', async () => {
    const t = await newTenant();
    const taken = await engineId(t);
    await waba(t, { linkedChannelId: String(taken) });
    // The waba side is claimed first, then the transport is found in use.
    const w = (await waba(t, { linkedChannelId: String(taken) })).whatsapp!.id;

    const free = await engineId(t);
    expect((await put(w, { linkedChannelId: String(free) })).hybrid).toMatchObject({ applied: true, linkedChannelId: free });
  });

  it('lets exactly one of 10 concurrent waba creates link the same transport', async () => {
    const t = await newTenant();
    const e = await engineId(t);
    const results = await Promise.all(Array.from({ length: 10 }, () => waba(t, { hybridMode: 'coexistence', linkedChannelId: String(e) })));

    expect(results.filter((r) => r.hybrid!.applied)).toHaveLength(1);
    expect(results.filter((r) => r.hybrid!.error === 'ERR_HYBRID_LINKED_IN_USE')).toHaveLength(9);
    expect(await h.count('channels', { tenantId: t, type: 'waba' })).toBe(10);
    expect(await h.count('channels', { tenantId: t, linkedChannelId: e })).toBe(1);
  });

  it('lets exactly one of 10 concurrent unofficial creates link to the same waba', async () => {
    const t = await newTenant();
    const w = (await waba(t)).whatsapp!.id;
    const results = await Promise.all(Array.from({ length: 10 }, () => engine(t, { linkToWhatsappId: String(w) })));

    const winners = results.filter((r) => r.hybrid!.applied);
    expect(winners).toHaveLength(1);
    expect(await channel(w)).toMatchObject({ linkedChannelId: winners[0].whatsapp!.id });
  });

  it('recovers a claim left over by a crashed request, but not a fresh one', async () => {
    const t = await newTenant();
    const e = await engineId(t);
    const orphan = (await waba(t)).whatsapp!.id;
    const claims = h.svc.db.collection('link_claims');
    await claims.insertOne({ _id: `transport:${e}` as never, tenantId: t, wabaId: orphan, transportId: e, createdAt: new Date() });
    expect((await waba(t, { linkedChannelId: String(e) })).hybrid).toMatchObject(failedWith('ERR_HYBRID_LINKED_IN_USE'));

    await claims.updateOne({ _id: `transport:${e}` as never }, { $set: { createdAt: new Date(Date.now() - 120_000) } });
    expect((await waba(t, { linkedChannelId: String(e) })).hybrid).toMatchObject({ applied: true, linkedChannelId: e });
  });
});

describe('hybrid links on PUT /whatsapp/{id}', () => {
  it('fixes a link that failed at creation', async () => {
    const t = await newTenant();
    const w = (await waba(t, { linkedChannelId: '999999' })).whatsapp!.id;
    const e = await engineId(t);
    const res = await put(w, { hybridMode: 'coexistence', linkedChannelId: String(e) });
    expect(res.hybrid).toMatchObject({ applied: true, whatsappId: w, hybridMode: 'coexistence', linkedChannelId: e });
    expect(res.whatsapp).toMatchObject({ hybridMode: 'coexistence', linkedChannelId: e });
  });

  it('releases the old transport when the link moves, and both sides when it is cleared', async () => {
    const t = await newTenant();
    const [e1, e2] = [await engineId(t), await engineId(t)];
    const w = (await waba(t, { linkedChannelId: String(e1) })).whatsapp!.id;

    expect((await put(w, { linkedChannelId: String(e2) })).hybrid).toMatchObject({ applied: true, linkedChannelId: e2 });
    expect((await waba(t, { linkedChannelId: String(e2) })).hybrid).toMatchObject(failedWith('ERR_HYBRID_LINKED_IN_USE'));
    expect((await waba(t, { linkedChannelId: String(e1) })).hybrid).toMatchObject({ applied: true });

    const cleared = await put(w, { linkedChannelId: '' });
    expect(cleared.hybrid).toMatchObject({ applied: true, whatsappId: w, hybridMode: 'disabled' });
    expect(cleared.hybrid!.linkedChannelId).toBeUndefined();
    expect(cleared.whatsapp!.linkedChannelId).toBeUndefined();
    expect((await waba(t, { linkedChannelId: String(e2) })).hybrid).toMatchObject({ applied: true });
    expect((await engine(t, { linkToWhatsappId: String(w) })).hybrid).toMatchObject({ applied: true });
  });

  it('applies the other fields when the link fails', async () => {
    const t = await newTenant();
    const w = (await waba(t)).whatsapp!.id;
    const res = await put(w, { name: 'Renamed', hybridMode: 'coexistence' });
    expect(res.hybrid).toMatchObject(failedWith('ERR_HYBRID_COEXISTENCE_REQUIRES_LINKED'));
    expect(res.whatsapp).toMatchObject({ name: 'Renamed', hybridMode: 'disabled' });
  });

  it('checks the coexistence transport type against the link it keeps', async () => {
    const t = await newTenant();
    const d = await engineId(t, 'engine_d');
    const w = (await waba(t, { hybridMode: 'two_numbers', linkedChannelId: String(d) })).whatsapp!.id;
    expect((await put(w, { hybridMode: 'coexistence' })).hybrid).toMatchObject(failedWith('ERR_HYBRID_COEXISTENCE_LINKED_TYPE'));
  });

  it.each([
    ['ERR_HYBRID_LINKED_SELF', 'waba', (self: number) => ({ linkedChannelId: String(self) })],
    ['ERR_HYBRID_INVALID_MODE', 'waba', () => ({ hybridMode: 'both' })],
    ['ERR_HYBRID_INVALID_ID_LINKED_CHANNEL', 'waba', () => ({ linkedChannelId: 'x' })],
    ['ERR_HYBRID_LINKED_NOT_FOUND', 'waba', () => ({ linkedChannelId: '999999' })],
    ['ERR_HYBRID_ONLY_WABA', 'engine', () => ({ hybridMode: 'two_numbers' })],
    ['ERR_HYBRID_INVALID_ID_LINKED_CHANNEL', 'engine', () => ({ linkedChannelId: '5' })],
  ])('reports %s on a %s channel', async (error, kind, fields) => {
    const t = await newTenant();
    const id = kind === 'waba' ? (await waba(t)).whatsapp!.id : await engineId(t);
    expect((await put(id, fields(id))).hybrid).toMatchObject(failedWith(error));
  });

  it('lets exactly one of 10 concurrent edits link the same transport', async () => {
    const t = await newTenant();
    const e = await engineId(t);
    const wabas = await Promise.all(Array.from({ length: 10 }, async () => (await waba(t)).whatsapp!.id));
    const results = await Promise.all(wabas.map((w) => put(w, { linkedChannelId: String(e) })));
    expect(results.filter((r) => r.hybrid!.applied)).toHaveLength(1);
    expect(await h.count('channels', { tenantId: t, linkedChannelId: e })).toBe(1);
  });
});
