import type { ServiceClient } from '@convo/kit';
import { commandsDuring, startServiceForTest, SUPER_ADMIN_TOKEN, type TestService } from '@convo/test-support';
import { ticketsService } from '../src/spec';

// Fields of the Ticket type a dashboard reads per row (notes, closedAt), on the real tickets
// subgraph over the embedded database.

let svc: TestService<'tickets'>;
let client: ServiceClient<'tickets'>;
let lastNumber = 0;
const newNumber = () => `55419${String(60_000_000 + ++lastNumber)}`;

beforeAll(async () => {
  svc = await startServiceForTest(ticketsService, { name: 'tickets-fields-test' });
  client = svc.client;
});

afterAll(() => svc?.stop());

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${svc.graphqlPort}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SUPER_ADMIN_TOKEN}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data: T; errors?: unknown };
  expect(body.errors).toBeUndefined();
  return body.data;
}

type Page = { tickets: { nodes: Array<{ id: number; notes: Array<{ notes: string }> }> } };
const PAGE = 'query($t: Int!, $first: Int!) { tickets(tenantId: $t, first: $first) { nodes { id notes { notes } } } }';

describe('Ticket.notes over a page of tickets', () => {
  const tenantId = 9_701;
  const other = 9_702;
  const notesWritten = new Map<number, string[]>();

  beforeAll(async () => {
    for (let i = 0; i < 40; i++) {
      const ticket = (await client.CreateTicket({ tenantId, channelId: 7, number: newNumber() })).ticket!;
      const texts = Array.from({ length: i % 3 }, (_, n) => `note ${n} of ${ticket.id}`);
      for (const notes of texts) await client.CreateNote({ tenantId, ticketId: ticket.id, notes, idFront: '' });
      notesWritten.set(ticket.id, texts);
    }
    // Another tenant's ticket with a note: never answered with the first tenant's tickets.
    const theirs = (await client.CreateTicket({ tenantId: other, channelId: 7, number: newNumber() })).ticket!;
    await client.CreateNote({ tenantId: other, ticketId: theirs.id, notes: 'not yours', idFront: '' });
  });

  /** The `find notes` commands of one page of `first` tickets, and the page. */
  async function noteReads(first: number): Promise<{ reads: number; page: Page }> {
    let page: Page | undefined;
    const commands = await commandsDuring(svc.db, async () => {
      page = await gql<Page>(PAGE, { t: tenantId, first });
    });
    return { reads: commands.filter((c) => c === 'find notes').length, page: page! };
  }

  it('answers each ticket its own notes, oldest first, with one read for the page whatever its size', async () => {
    const small = await noteReads(5);
    const large = await noteReads(40);
    expect(large.page.tickets.nodes).toHaveLength(40);
    for (const t of large.page.tickets.nodes) expect(t.notes.map((n) => n.notes)).toEqual(notesWritten.get(t.id));
    expect({ small: small.reads, large: large.reads }).toEqual({ small: 1, large: 1 });
  });
});

describe('Ticket.closedAt', () => {
  it('is null while open, the time of the close once closed, and null again after a reopen', async () => {
    const tenantId = 9_703;
    const ticket = (await client.CreateTicket({ tenantId, channelId: 7, number: newNumber() })).ticket!;
    const closedAt = async () =>
      (
        await gql<{ ticket: { closedAt: string | null } }>('query($t: Int!, $id: Int!) { ticket(tenantId: $t, id: $id) { closedAt } }', {
          t: tenantId,
          id: ticket.id,
        })
      ).ticket.closedAt;
    expect(await closedAt()).toBeNull();
    const before = Date.now();
    await client.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'closed' });
    const closed = await closedAt();
    expect(Date.parse(closed!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(closed!)).toBeLessThanOrEqual(Date.now() + 1000);
    await client.UpdateTicket({ tenantId, ticketId: ticket.id, status: 'open' });
    expect(await closedAt()).toBeNull();
  });
});
