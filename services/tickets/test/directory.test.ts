import * as grpc from '@grpc/grpc-js';
import type { ServiceClient } from '@convo/kit';
import { errCode, errFields, rpcError, startServiceForTest, SUPER_ADMIN_TOKEN, type TestService } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// Contacts, tag and queue pages, notes and the pause log against the real tickets service on the
// embedded database.

let lastTenant = 9_000;
const newTenantId = () => ++lastTenant;
let lastNumber = 0;
const newNumber = () => `55319${String(50_000_000 + ++lastNumber)}`;

let svc: TestService<'tickets'>;
let client: ServiceClient<'tickets'>;

beforeAll(async () => {
  svc = await startServiceForTest(ticketsService, { name: 'tickets-directory-test' });
  client = svc.client;
});

afterAll(() => svc?.stop());

async function gql(query: string, variables: Record<string, unknown>): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  return ((await res.json()) as { data: any }).data;
}
const createTag = async (tenantId: number, name: string): Promise<number> =>
  (await gql('mutation($t: Int!, $n: String!) { createTag(tenantId: $t, name: $n) { id } }', { t: tenantId, n: name })).createTag.id;
const createQueue = async (tenantId: number, name: string): Promise<number> =>
  (await gql('mutation($t: Int!, $n: String!) { createQueue(tenantId: $t, name: $n) { id } }', { t: tenantId, n: name })).createQueue.id;

const newTicket = async (tenantId: number, number = newNumber(), channelId = 7) =>
  (await client.CreateTicket({ tenantId, channelId, number })).ticket!;

// ---- contacts ----------------------------------------------------------------------------------

describe('contacts', () => {
  it('creates a contact of the channel, shows it by number, and refuses the number twice', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const { contact, created } = await client.CreateContact({
      tenantId,
      channelId: 7,
      number: `+${number}`,
      firstName: 'Ana',
      lastName: 'Souza',
      email: 'Ana@Example.com',
      externalKey: 'crm-1',
    });
    expect(created).toBe(true);
    expect(contact).toMatchObject({
      tenantId,
      channelId: 7,
      number,
      name: 'Ana Souza',
      email: 'ana@example.com',
      firstName: 'Ana',
      externalKey: 'crm-1',
      tagIds: [],
    });
    expect(await client.GetContact({ tenantId, channelId: 7, number })).toMatchObject({ id: contact!.id, name: 'Ana Souza' });

    const again = await rpcError(client.CreateContact({ tenantId, channelId: 7, number, name: 'Other' }));
    expect([again.code, errCode(again)]).toEqual([grpc.status.ABORTED, 'ERR_CONTACT_EXISTS']);
    // A retry with the same externalKey answers the first contact.
    expect(await client.CreateContact({ tenantId, channelId: 7, number, externalKey: 'crm-1' })).toMatchObject({
      created: false,
      contact: { id: contact!.id },
    });
    expect(await svc.db.collection('contacts').countDocuments({ tenantId })).toBe(1);
  });

  it('answers NOT_FOUND for a number of another channel or tenant', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    await client.CreateContact({ tenantId, channelId: 7, number });
    for (const where of [
      { tenantId, channelId: 8 },
      { tenantId: newTenantId(), channelId: 7 },
    ]) {
      const err = await rpcError(client.GetContact({ ...where, number }));
      expect([err.code, errCode(err)]).toEqual([grpc.status.NOT_FOUND, 'ERR_CONTACT_NOT_FOUND']);
      const update = await rpcError(client.UpdateContact({ ...where, number, name: 'X' }));
      expect(errCode(update)).toBe('ERR_CONTACT_NOT_FOUND');
    }
  });

  it("updates the given fields only, and a new name shows on the contact's tickets", async () => {
    const tenantId = newTenantId();
    const ticket = await newTicket(tenantId);
    const number = ticket.contact!.number;
    await client.UpdateContact({ tenantId, channelId: 7, number, businessName: 'Acme' });
    const updated = await client.UpdateContact({ tenantId, channelId: 7, number, name: 'Bia Lima' });
    expect(updated).toMatchObject({ id: ticket.contact!.id, name: 'Bia Lima', businessName: 'Acme', email: '' });
    expect((await client.GetTicket({ tenantId, ticketId: ticket.id })).contact!.name).toBe('Bia Lima');
    expect((await client.ListTickets({ tenantId, page: 1, search: 'bia' })).count).toBe(1);
  });

  it('refuses invalid fields all at once, changing nothing', async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const err = await rpcError(client.CreateContact({ tenantId, channelId: 7, number, email: 'not-mail', name: 'x'.repeat(201) }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errFields(err).sort()).toEqual(['email', 'name']);
    expect(await svc.db.collection('contacts').countDocuments({ tenantId })).toBe(0);
  });

  it("lists the tenant's contacts by name in pages of 20, searchable, and by tag", async () => {
    const tenantId = newTenantId();
    for (let i = 0; i < 23; i++)
      await client.CreateContact({ tenantId, channelId: 7, number: newNumber(), name: `Name ${String(i).padStart(2, '0')}` });
    await client.CreateContact({ tenantId: newTenantId(), channelId: 7, number: newNumber(), name: 'Name foreign' });

    const first = await client.ListContacts({ tenantId, page: 1 });
    expect(first).toMatchObject({ count: 23, hasMore: true, page: 1, pageSize: 20 });
    expect(first.contacts.map((c) => c.name)).toEqual(Array.from({ length: 20 }, (_, i) => `Name ${String(i).padStart(2, '0')}`));
    const last = await client.ListContacts({ tenantId, page: 2 });
    expect(last).toMatchObject({ count: 23, hasMore: false });
    expect(last.contacts).toHaveLength(3);
    expect((await client.ListContacts({ tenantId, page: 1, search: 'name 1' })).count).toBe(10);

    // A contact carries its tickets' tags while one of its tickets has them.
    const vip = await createTag(tenantId, 'VIP');
    const ticket = await newTicket(tenantId);
    const other = await newTicket(tenantId, ticket.contact!.number); // same contact: CreateTicket finds it
    expect(other.contact!.id).toBe(ticket.contact!.id);
    await client.AddTags({ tenantId, ticketId: ticket.id, tagIds: [vip] });
    await client.AddTags({ tenantId, ticketId: other.id, tagIds: [vip] });
    expect((await client.ListContacts({ tenantId, page: 1, tagId: vip })).contacts.map((c) => c.id)).toEqual([ticket.contact!.id]);
    await client.RemoveTag({ tenantId, ticketId: ticket.id, tagId: vip });
    expect((await client.ListContacts({ tenantId, page: 1, tagId: vip })).count).toBe(1);
    await client.RemoveTag({ tenantId, ticketId: other.id, tagId: vip });
    expect((await client.ListContacts({ tenantId, page: 1, tagId: vip })).count).toBe(0);

    const foreignTag = await createTag(newTenantId(), 'VIP');
    const err = await rpcError(client.ListContacts({ tenantId, page: 1, tagId: foreignTag }));
    expect(errCode(err)).toBe('ERR_TAG_NOT_FOUND');
  });
});

// ---- tags and queues -----------------------------------------------------------------------

describe('ListTags and ListQueues', () => {
  it("answers the tenant's own, by name, in pages, with a plain-text search", async () => {
    const tenantId = newTenantId();
    for (const name of ['Urgent', 'billing', 'VIP (gold)']) await createTag(tenantId, name);
    await createTag(newTenantId(), 'Foreign');
    const queue = await createQueue(tenantId, 'Support');

    const tags = await client.ListTags({ tenantId, page: 1 });
    expect(tags).toMatchObject({ count: 3, hasMore: false, page: 1, pageSize: 20 });
    expect(tags.items.map((t) => t.name)).toEqual(['Urgent', 'VIP (gold)', 'billing']);
    expect((await client.ListTags({ tenantId, page: 1, search: '(GOLD' })).items.map((t) => t.name)).toEqual(['VIP (gold)']);
    expect((await client.ListTags({ tenantId, page: 2 })).items).toEqual([]);
    expect((await client.ListQueues({ tenantId, page: 1 })).items).toEqual([{ id: queue, name: 'Support', createdAt: expect.any(String) }]);
  });
});

// ---- notes ---------------------------------------------------------------------------------

describe('ListNotes and UpdateNote', () => {
  it("lists a ticket's notes oldest first, changes a note's text, and keeps tenants apart", async () => {
    const tenantId = newTenantId();
    const ticket = await newTicket(tenantId);
    const first = await client.CreateNote({ tenantId, ticketId: ticket.id, notes: 'First', idFront: '' });
    await client.CreateNote({ tenantId, ticketId: ticket.id, notes: 'Second', idFront: '' });

    const updated = await client.UpdateNote({ tenantId, noteId: first.id, notes: '  Changed  ' });
    expect(updated).toMatchObject({ id: first.id, notes: 'Changed', createdAt: first.createdAt });
    expect(updated.updatedAt > first.createdAt).toBe(true);
    const page = await client.ListNotes({ tenantId, ticketId: ticket.id, page: 1 });
    expect(page).toMatchObject({ count: 2, hasMore: false, page: 1, pageSize: 20 });
    expect(page.notes.map((n) => n.notes)).toEqual(['Changed', 'Second']);

    const other = newTenantId();
    expect(errCode(await rpcError(client.UpdateNote({ tenantId: other, noteId: first.id, notes: 'x' })))).toBe('ERR_NOTE_NOT_FOUND');
    expect(errCode(await rpcError(client.ListNotes({ tenantId: other, ticketId: ticket.id, page: 1 })))).toBe('ERR_TICKET_NOT_FOUND');
    expect(errFields(await rpcError(client.UpdateNote({ tenantId, noteId: first.id, notes: '   ' })))).toEqual(['notes']);
    expect((await client.ListNotes({ tenantId, ticketId: ticket.id, page: 1 })).notes[0].notes).toBe('Changed');
  });
});

// ---- the pause log -------------------------------------------------------------------------

describe('ListPauses', () => {
  it('logs each pause with its reason, start and end, and how it ended', async () => {
    const tenantId = newTenantId();
    const ticket = await newTicket(tenantId);
    await client.StartPause({ tenantId, ticketId: ticket.id, pauseReason: 'Lunch' });
    await client.EndPause({ tenantId, ticketId: ticket.id });
    await client.StartPause({ tenantId, ticketId: ticket.id, pauseReason: 'Waiting for the carrier' });

    let log = await client.ListPauses({ tenantId, ticketId: ticket.id, page: 1 });
    expect(log).toMatchObject({ count: 2, hasMore: false, page: 1, pageSize: 20 });
    expect(log.pauses).toEqual([
      {
        id: expect.any(Number),
        ticketId: ticket.id,
        pauseReason: 'Lunch',
        startedAt: expect.any(String),
        endedAt: expect.any(String),
        endedBy: 'end',
      },
      {
        id: expect.any(Number),
        ticketId: ticket.id,
        pauseReason: 'Waiting for the carrier',
        startedAt: expect.any(String),
        endedAt: '',
        endedBy: '',
      },
    ]);

    // Closing the ticket ends its pause, in the log too.
    await client.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'closed' });
    log = await client.ListPauses({ tenantId, ticketId: ticket.id, page: 1 });
    expect(log.pauses[1]).toMatchObject({ endedBy: 'close', endedAt: expect.stringMatching(/^\d{4}-/) });

    // A refused start (already paused) logs nothing.
    const again = await newTicket(tenantId);
    await client.StartPause({ tenantId, ticketId: again.id, pauseReason: 'One' });
    await rpcError(client.StartPause({ tenantId, ticketId: again.id, pauseReason: 'Two' }));
    expect((await client.ListPauses({ tenantId, ticketId: again.id, page: 1 })).count).toBe(1);

    const err = await rpcError(client.ListPauses({ tenantId: newTenantId(), ticketId: ticket.id, page: 1 }));
    expect([err.code, errCode(err)]).toEqual([grpc.status.NOT_FOUND, 'ERR_TICKET_NOT_FOUND']);
  });
});

// ---- DiscardTicket after OpenForContact -------------------------------------------------------

describe('DiscardTicket of a ticket OpenForContact opened', () => {
  it("frees the contact's open claim, so the next OpenForContact opens at once", async () => {
    const tenantId = newTenantId();
    const number = newNumber();
    const opened = await client.OpenForContact({ tenantId, channelId: 7, number });
    expect(opened.created).toBe(true);
    await client.DiscardTicket({ tenantId, ticketId: opened.ticket!.id });

    const started = Date.now();
    const next = await client.OpenForContact({ tenantId, channelId: 7, number });
    expect(next.created).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

// ---- a contact's identities beyond the phone ------------------------------------------------

// docs/api/contact-identities.md: in the answers, the GraphQL Contact and the free-text searches. The
// identities are written here as the inbound path links them: on the contact, on its tickets' copy
// and on their listing rows.

const BSUID = 'BR.13491208655302741918';
const PARENT_BSUID = 'BR.ENT.99887766554433221100';
const LID = '148592765938274@lid';

/** A ticket of a new contact known by these identities besides its number (`number: ''`: by them alone). */
async function ticketWith(tenantId: number, identities: Record<string, string>, number = newNumber()) {
  const { ticket } = await client.OpenForContact({ tenantId, channelId: 7, number, ...identities });
  return ticket!;
}

describe("a contact's identities in the answers", () => {
  it('carries bsuid, parentBsuid, lid and username on the ticket and the contact record, "" when unknown', async () => {
    const tenantId = newTenantId();
    const ticket = await ticketWith(tenantId, { bsuid: BSUID, parentBsuid: PARENT_BSUID, username: 'ana.souza' });
    const read = await client.GetTicket({ tenantId, ticketId: ticket.id });
    expect(read.contact).toMatchObject({
      number: ticket.contact!.number,
      bsuid: BSUID,
      parentBsuid: PARENT_BSUID,
      lid: '',
      username: 'ana.souza',
    });
    const contact = await client.GetContactById({ tenantId, contactId: ticket.contact!.id });
    expect(contact).toMatchObject({
      number: ticket.contact!.number,
      bsuid: BSUID,
      parentBsuid: PARENT_BSUID,
      lid: '',
      username: 'ana.souza',
    });
  });
});

describe('the GraphQL Contact', () => {
  const query =
    'query($t: Int!, $id: Int!) { ticket(tenantId: $t, id: $id) { contact { id number name email bsuid parentBsuid lid username } } }';

  it('shows a contact known only by its BSUID with number "" and its identities, null when unknown', async () => {
    const tenantId = newTenantId();
    const ticket = await ticketWith(tenantId, { bsuid: BSUID, username: 'ana.souza' }, '');
    const { contact } = (await gql(query, { t: tenantId, id: ticket.id })).ticket;
    expect(contact).toEqual({
      id: ticket.contact!.id,
      number: '',
      name: '',
      email: '',
      bsuid: BSUID,
      parentBsuid: null,
      lid: null,
      username: 'ana.souza',
    });
  });

  it('shows a phone contact as before, its identities null', async () => {
    const tenantId = newTenantId();
    const ticket = await ticketWith(tenantId, {});
    const { contact } = (await gql(query, { t: tenantId, id: ticket.id })).ticket;
    expect(contact).toMatchObject({ number: ticket.contact!.number, bsuid: null, parentBsuid: null, lid: null, username: null });
  });
});

describe('the free-text searches', () => {
  it('find a ticket by the BSUID, the LID (or its digits) and the username of its contact', async () => {
    const tenantId = newTenantId();
    const waba = await ticketWith(tenantId, { bsuid: BSUID, username: 'ana.souza' });
    const engine = await ticketWith(tenantId, { lid: LID });
    await ticketWith(tenantId, {});
    const search = async (text: string) => (await client.ListTickets({ tenantId, page: 1, search: text })).tickets.map((t) => t.id);
    const graph = async (text: string) =>
      (
        await gql('query($t: Int!, $s: String) { tickets(tenantId: $t, search: $s) { nodes { id } } }', { t: tenantId, s: text })
      ).tickets.nodes.map((n: { id: number }) => n.id);

    expect(await search('br.1349120865')).toEqual([waba.id]);
    expect(await search('Ana.Souza')).toEqual([waba.id]);
    expect(await search(LID)).toEqual([engine.id]);
    expect(await search('148592765938274')).toEqual([engine.id]);
    expect(await graph(BSUID)).toEqual([waba.id]);
  });

  it('find a contact of listContacts by its BSUID, LID or username', async () => {
    const tenantId = newTenantId();
    const waba = await ticketWith(tenantId, { bsuid: BSUID, username: 'ana.souza' });
    const engine = await ticketWith(tenantId, { lid: LID });
    const search = async (text: string) => (await client.ListContacts({ tenantId, page: 1, search: text })).contacts.map((c) => c.id);

    expect(await search(BSUID)).toEqual([waba.contact!.id]);
    expect(await search('souza')).toEqual([waba.contact!.id]);
    expect(await search('148592765938274@')).toEqual([engine.contact!.id]);
  });
});
