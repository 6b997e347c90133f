import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, startServiceForTest, type TestService } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// A contact's identities beyond the phone (BSUID, parent BSUID, LID) against the real tickets
// service on the embedded database: linked, merged, looked up, repaired.

let lastTenant = 9_000;
const newTenantId = () => ++lastTenant;
let last = 0;
const newPhone = () => `55319${String(40_000_000 + ++last)}`;
const newBsuid = () => `BR.${String(1_349_120_865_530_274 + ++last)}`;
const newLid = () => `${String(276_375_994_100_000 + ++last)}@lid`;

let svc: TestService<'tickets'>;
let client: ServiceClient<'tickets'>;

beforeAll(async () => {
  svc = await startServiceForTest(ticketsService, { name: 'tickets-identities-test' });
  client = svc.client;
});

afterAll(() => svc?.stop());

const CHANNEL = 7;
const open = (tenantId: number, over: Record<string, unknown>) => client.OpenForContact({ tenantId, channelId: CHANNEL, ...over });
const contactsOf = (tenantId: number) => svc.db.collection('contacts').find({ tenantId }).sort({ _id: 1 }).toArray();
const liveContactsOf = async (tenantId: number) => (await contactsOf(tenantId)).filter((c) => !c.mergedInto);

describe('contact identities', () => {
  it('stores a BSUID-only contact under its BSUID, shows no number, and finds it by the BSUID', async () => {
    const tenantId = newTenantId();
    const bsuid = newBsuid();
    const first = await open(tenantId, { bsuid, username: 'ana.s', name: 'Ana' });
    expect(first.ticket!.contact).toMatchObject({ number: bsuid, bsuid, username: 'ana.s', name: 'Ana' });
    const again = await open(tenantId, { bsuid });
    expect(again).toMatchObject({ created: false, ticket: { id: first.ticket!.id } });
    // The API's number field takes the BSUID too.
    expect(await client.GetContact({ tenantId, channelId: CHANNEL, number: bsuid })).toMatchObject({ bsuid, number: bsuid });
    expect((await client.FindContactTickets({ tenantId, number: bsuid, all: false })).tickets.map((t) => t.id)).toEqual([first.ticket!.id]);
    expect(await liveContactsOf(tenantId)).toHaveLength(1);
  });

  it('links a phone and a BSUID seen together to one contact, whichever came first, keeping its ticket', async () => {
    const tenantId = newTenantId();
    const [phone, bsuid] = [newPhone(), newBsuid()];
    const byBsuid = await open(tenantId, { bsuid, name: 'Bia' });
    const both = await open(tenantId, { number: phone, bsuid });
    expect(both).toMatchObject({ created: false, ticket: { id: byBsuid.ticket!.id, contact: { number: phone, bsuid } } });
    const byPhone = await open(tenantId, { number: phone });
    expect(byPhone.ticket!.id).toBe(byBsuid.ticket!.id);
    // The ticket's copy follows: a send reads the phone with the ticket.
    expect((await client.GetTicket({ tenantId, ticketId: byBsuid.ticket!.id })).contact).toMatchObject({ number: phone, bsuid });
    expect(await liveContactsOf(tenantId)).toEqual([expect.objectContaining({ number: phone, bsuid, name: 'Bia' })]);
  });

  it('merges two contacts of one person (each with an open ticket) into the older: both ticket ids keep working', async () => {
    const tenantId = newTenantId();
    const [phone, bsuid] = [newPhone(), newBsuid()];
    const a = await open(tenantId, { number: phone, name: 'Caio' });
    await client.AddTags({ tenantId, ticketId: a.ticket!.id, tagIds: [] }).catch(() => undefined);
    const b = await open(tenantId, { bsuid, username: 'caio' });
    expect(b.ticket!.id).not.toBe(a.ticket!.id);
    const [older] = await contactsOf(tenantId);

    const linked = await open(tenantId, { number: phone, bsuid });
    const live = await liveContactsOf(tenantId);
    expect(live).toEqual([expect.objectContaining({ _id: older._id, number: phone, bsuid, username: 'caio', name: 'Caio' })]);
    // Both tickets are the merged contact's now; the current one is the most recently active.
    for (const id of [a.ticket!.id, b.ticket!.id]) {
      expect((await client.GetTicket({ tenantId, ticketId: id })).contact).toMatchObject({ id: older._id, number: phone, bsuid });
    }
    expect([a.ticket!.id, b.ticket!.id]).toContain(linked.ticket!.id);
    const all = await client.FindContactTickets({ tenantId, number: bsuid, all: true });
    expect(all.tickets.map((t) => t.id).sort()).toEqual([a.ticket!.id, b.ticket!.id].sort());
    // The merged contact's id answers the contact it went into.
    const merged = (await contactsOf(tenantId)).find((c) => c.mergedInto)!;
    expect(await client.GetContactById({ tenantId, contactId: merged._id })).toMatchObject({ id: older._id, bsuid });
    const listed = await client.ListContacts({ tenantId, page: 1 });
    expect(listed.contacts.map((c) => c.id)).toEqual([older._id]);
  });

  it('finishes a merge cut short (marked, nothing moved yet) when the merged contact is found again', async () => {
    const tenantId = newTenantId();
    const [phone, bsuid] = [newPhone(), newBsuid()];
    const a = await open(tenantId, { number: phone });
    const b = await open(tenantId, { bsuid });
    const [older, newer] = await contactsOf(tenantId);
    // What a process killed right after marking leaves.
    await svc.db.collection('contacts').updateOne({ _id: newer._id }, { $set: { mergedInto: older._id } });
    const again = await open(tenantId, { bsuid });
    expect([a.ticket!.id, b.ticket!.id]).toContain(again.ticket!.id);
    expect(await liveContactsOf(tenantId)).toEqual([expect.objectContaining({ _id: older._id, number: phone, bsuid })]);
    expect((await client.GetTicket({ tenantId, ticketId: b.ticket!.id })).contact!.id).toBe(older._id);
  });

  it('gives 20 concurrent first messages carrying one new (phone, BSUID) pair one contact and one ticket', async () => {
    const tenantId = newTenantId();
    const [phone, bsuid] = [newPhone(), newBsuid()];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => open(tenantId, i % 3 ? { number: phone, bsuid } : { bsuid }).catch((e: Error) => e)),
    );
    const ok = answers.filter((a): a is Exclude<typeof a, Error> => !(a instanceof Error));
    expect(ok.length).toBeGreaterThan(0);
    // Whatever raced, the next message finds one contact.
    await open(tenantId, { number: phone, bsuid });
    expect(await liveContactsOf(tenantId)).toEqual([expect.objectContaining({ number: phone, bsuid })]);
    const open_ = (
      await svc.db
        .collection('tickets')
        .find({ tenantId, status: { $ne: 'closed' } })
        .toArray()
    ).map((t) => t.contactId);
    expect(new Set(open_).size).toBe(1);
  });

  it('keeps LID digits out of the number and repairs a contact stored with them when the LID comes again', async () => {
    const tenantId = newTenantId();
    const lid = newLid();
    const digits = lid.split('@')[0];
    const onlyLid = await open(tenantId, { lid, name: 'Duda' });
    expect(onlyLid.ticket!.contact).toMatchObject({ number: lid, lid });

    // Stored before identities: an engine message from a LID made a contact whose number is its digits.
    const other = newTenantId();
    const legacy = await open(other, { number: digits, name: 'Eva' });
    expect(legacy.ticket!.contact!.number).toBe(digits);
    const phone = newPhone();
    const repaired = await open(other, { lid: `${digits}@lid`, number: phone });
    expect(repaired.ticket!.id).toBe(legacy.ticket!.id);
    expect(await liveContactsOf(other)).toEqual([expect.objectContaining({ number: phone, lid: `${digits}@lid`, name: 'Eva' })]);
    expect((await client.GetTicket({ tenantId: other, ticketId: legacy.ticket!.id })).contact).toMatchObject({
      number: phone,
      lid: `${digits}@lid`,
    });

    // Without the phone, the LID itself becomes the key.
    const third = newTenantId();
    const old = await open(third, { number: digits });
    const again = await open(third, { lid: `${digits}@lid` });
    expect(again.ticket!.id).toBe(old.ticket!.id);
    expect(await liveContactsOf(third)).toEqual([expect.objectContaining({ number: `${digits}@lid`, lid: `${digits}@lid` })]);
  });

  it("merges the LID-digits contact into the phone's when both exist and an event names the pair", async () => {
    const tenantId = newTenantId();
    const [phone, lid] = [newPhone(), newLid()];
    // Before identities: the person's LID-only messages made one contact (its digits), the ones
    // carrying remoteJidAlt another (the phone).
    const byDigits = await open(tenantId, { number: lid.split('@')[0] });
    const byPhone = await open(tenantId, { number: phone });
    expect(byDigits.ticket!.contact!.id).not.toBe(byPhone.ticket!.contact!.id);
    await open(tenantId, { number: phone, lid });
    expect(await liveContactsOf(tenantId)).toEqual([expect.objectContaining({ number: phone, lid })]);
    for (const t of [byDigits, byPhone]) {
      expect((await client.GetTicket({ tenantId, ticketId: t.ticket!.id })).contact).toMatchObject({ number: phone, lid });
    }
  });

  it('never takes a LID digits for a phone when a provider puts them beside the LID', async () => {
    const tenantId = newTenantId();
    const lid = newLid();
    const { ticket } = await open(tenantId, { lid, number: lid.split('@')[0] });
    expect(ticket!.contact).toMatchObject({ number: lid, lid });
  });

  it('keeps tenants and channels apart: one BSUID and one LID on two tenants are two contacts each', async () => {
    const [t1, t2] = [newTenantId(), newTenantId()];
    const [bsuid, lid] = [newBsuid(), newLid()];
    const a = await open(t1, { bsuid });
    const b = await open(t2, { bsuid });
    const c = await client.OpenForContact({ tenantId: t1, channelId: CHANNEL + 1, lid });
    const d = await client.OpenForContact({ tenantId: t2, channelId: CHANNEL + 1, lid });
    expect(new Set([a, b, c, d].map((r) => r.ticket!.id)).size).toBe(4);
    expect((await client.FindContactTickets({ tenantId: t1, number: bsuid, all: true })).tickets.map((t) => t.id)).toEqual([a.ticket!.id]);
  });

  it('links identities without opening a ticket (link_only)', async () => {
    const tenantId = newTenantId();
    const [phone, bsuid] = [newPhone(), newBsuid()];
    await open(tenantId, { number: phone });
    const linked = await open(tenantId, { number: phone, bsuid, linkOnly: true });
    expect(linked.ticket ?? null).toBeNull();
    expect(await client.GetContact({ tenantId, channelId: CHANNEL, number: bsuid })).toMatchObject({ number: phone, bsuid });
  });

  it('refuses malformed identities, naming the field', async () => {
    const tenantId = newTenantId();
    for (const [over, field] of [
      [{ bsuid: 'BR.13-4' }, 'bsuid'],
      [{ bsuid: 'US.ENT.1234' }, 'bsuid'],
      [{ lid: '123@s.whatsapp.net' }, 'lid'],
      [{ parentBsuid: 'xx' }, 'parent_bsuid'],
    ] as const) {
      const err = await rpcError(open(tenantId, over));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(errFields(err)).toEqual([field]);
    }
    expect(await contactsOf(tenantId)).toEqual([]);
  });

  it('creates and updates a contact by its BSUID or LID (createContact, updateContact)', async () => {
    const tenantId = newTenantId();
    const [bsuid, lid] = [newBsuid(), newLid()];
    const created = await client.CreateContact({ tenantId, channelId: CHANNEL, number: bsuid, name: 'Fábio' });
    expect(created).toMatchObject({ created: true, contact: { bsuid, number: bsuid } });
    const err = await rpcError(client.CreateContact({ tenantId, channelId: CHANNEL, number: bsuid, name: 'Again' }));
    expect(errCode(err)).toBe('ERR_CONTACT_EXISTS');
    await client.CreateContact({ tenantId, channelId: CHANNEL, number: lid });
    const updated = await client.UpdateContact({ tenantId, channelId: CHANNEL, number: lid, name: 'Gil' });
    expect(updated).toMatchObject({ lid, name: 'Gil' });
  });
});
