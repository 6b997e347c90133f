// A tenant's tickets and one ticket's conversation.

import { h, link, table } from './dom.js';
import { alertLine, currentView, gql, refreshEvery, report, show } from './view.js';

/** A ticket's contact as the console reads it: its number is "" when it has none (docs/api/contact-identities.md). */
interface ContactShown {
  name: string;
  number: string;
  username: string | null;
  bsuid: string | null;
  lid: string | null;
}
const CONTACT_FIELDS = 'contact { name number username bsuid lid }';
/** The name and whichever identity the contact has, the number first. */
const contactLabel = (c: ContactShown) => [c.name, c.number || c.username || c.bsuid || c.lid].filter(Boolean).join(' ');

interface TicketRow {
  id: number;
  status: string;
  updatedAt: string;
  contact: ContactShown;
  channel: { name: string };
}

export async function ticketList(where: HTMLElement, tenantId: number) {
  const filters = h(
    'form',
    { 'data-testid': 'ticket-filters' },
    h('select', { name: 'status' }, ...['', 'open', 'pending', 'closed'].map((s) => h('option', { value: s }, s || 'any status'))),
    h('input', { name: 'search', placeholder: 'name, number, e-mail, BSUID, LID or username', maxlength: '100' }),
    h('button', { type: 'submit' }, 'Filter'),
  );
  const results = h('div');
  const load = async () => {
    const f = new FormData(filters as HTMLFormElement);
    const status = String(f.get('status') ?? '') || null;
    const search = String(f.get('search') ?? '') || null;
    const data = await gql<{ tickets: { totalCount: number; nodes: TicketRow[] } }>(
      `query($t: Int!, $status: TicketStatus, $search: String) {
        tickets(tenantId: $t, first: 50, status: $status, search: $search) { totalCount nodes { id status updatedAt ${CONTACT_FIELDS} channel { name } } }
      }`,
      { t: tenantId, status, search },
    );
    results.replaceChildren(
      h('p', {}, `${data.tickets.totalCount} tickets`),
      table(
        ['Ticket', 'Status', 'Contact', 'Channel', 'Last activity'],
        data.tickets.nodes.map((t) => [
          link(`#/tenant/${tenantId}/ticket/${t.id}`, `#${t.id}`),
          t.status,
          contactLabel(t.contact),
          t.channel.name,
          t.updatedAt,
        ]),
        'tickets',
      ),
    );
  };
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    load().catch(report(results));
  });
  where.replaceChildren(h('h2', {}, 'Tickets'), filters, results);
  await load();
}

/** Messages a ticket's conversation shows: its newest, as a long conversation is read from its end. */
const CONVERSATION_SIZE = 100;

interface ConversationTicket {
  id: number;
  status: string;
  contact: ContactShown;
  latestMessages: { totalCount: number; nodes: { id: string; direction: string; body: string; status: string; createdAt: string }[] };
}

/** A ticket's newest messages (oldest of them first), refreshed every few seconds as the tenant view is. */
export async function ticketView(tenantId: number, ticketId: number) {
  const mine = currentView();
  const load = async () =>
    (
      await gql<{ ticket: ConversationTicket | null }>(
        `query($t: Int!, $id: Int!, $last: Int!) {
          ticket(tenantId: $t, id: $id) { id status ${CONTACT_FIELDS} latestMessages(last: $last) { totalCount nodes { id direction body status createdAt } } }
        }`,
        { t: tenantId, id: ticketId, last: CONVERSATION_SIZE },
      )
    ).ticket;
  const first = await load();
  if (!first) return show(h('section', {}, h('h2', {}, `Ticket ${ticketId}`), h('p', { class: 'error' }, 'Not found')));
  const heading = h('h2');
  const summary = h('p');
  const messages = h('div', { 'data-testid': 'messages' });
  const refreshFailure = alertLine('refresh-error');
  const paint = (t: ConversationTicket) => {
    const { totalCount, nodes } = t.latestMessages;
    heading.textContent = `Ticket #${t.id} · ${t.status} · ${contactLabel(t.contact)}`;
    const count = nodes.length < totalCount ? `${totalCount} messages, the newest ${nodes.length} shown` : `${totalCount} messages`;
    summary.replaceChildren(link(`#/tenant/${tenantId}`, '← tenant'), ` · ${count}`);
    messages.replaceChildren(
      ...nodes.map((m) =>
        h(
          'div',
          { class: `msg ${m.direction}`, 'data-message': m.id },
          m.body,
          h('small', {}, `${m.direction} · ${m.status} · ${m.createdAt}`),
        ),
      ),
    );
  };
  paint(first);
  show(h('section', { 'data-testid': 'conversation' }, heading, summary, refreshFailure.el, messages));
  const refresh = async () => {
    const t = await load();
    if (t) paint(t);
  };
  refreshEvery(mine, () => refresh().then(refreshFailure.clear, refreshFailure.show));
}
