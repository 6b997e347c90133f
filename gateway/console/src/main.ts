// The operator console: a single page on the GraphQL API alone (docs/api/console.md).
// Signed in with the super-admin token it sees every tenant; a tenant's administrator (e-mail and
// password of tenantApiStoreTenant, POST /graphql/login) sees that tenant only. Everything shown
// is set with textContent: nothing read from the API becomes markup.

import { age, failure, h, link, table } from './dom.js';

type Vars = Record<string, unknown>;
interface Session {
  token: string;
  /** Set for a tenant administrator: the one tenant the session reaches. */
  tenantId?: number;
  label: string;
}

const SESSION_KEY = 'convo.console.session';
const REFRESH_MS = 3_000;
/** Dead webhooks listed at once (the newest); the heading counts them all. */
const DEAD_SHOWN = 50;

const app = document.getElementById('app')!;
let session: Session | undefined = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') ?? undefined;
/** The periodic refresh of the current view, stopped when the view changes. */
let timer: ReturnType<typeof setInterval> | undefined;
/** Counts views shown: a view still loading when another was opened must not start its refresh. */
let viewNumber = 0;

// ---- the API --------------------------------------------------------------------------------

async function gql<T>(query: string, variables: Vars = {}): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session?.token ?? ''}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) signOut();
  const error = body.errors?.[0] ?? (res.ok ? undefined : body);
  if (error) throw new Error(`${error.extensions?.code ?? error.error ?? res.status}: ${error.message}`);
  return body.data as T;
}

async function login(email: string, password: string): Promise<Session> {
  const res = await fetch('/graphql/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return { token: body.data.token, tenantId: body.data.tenantId, label: email };
}

function show(...nodes: Node[]) {
  app.replaceChildren(...nodes);
}

// ---- views ----------------------------------------------------------------------------------

function signInView() {
  const status = h('p', { class: 'error', role: 'alert' });
  const adopt = (s: Session) => {
    session = s;
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
    location.hash = s.tenantId ? `#/tenant/${s.tenantId}` : '#/';
    route();
  };
  const adminForm = h(
    'form',
    { 'data-testid': 'login-admin' },
    h('input', { name: 'email', type: 'email', placeholder: 'e-mail', required: '', autocomplete: 'username' }),
    h('input', { name: 'password', type: 'password', placeholder: 'password', required: '', autocomplete: 'current-password' }),
    h('button', { type: 'submit' }, 'Sign in as tenant administrator'),
  );
  adminForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(adminForm as HTMLFormElement);
    login(String(f.get('email')), String(f.get('password'))).then(adopt, (err: Error) => (status.textContent = err.message));
  });
  const tokenForm = h(
    'form',
    { 'data-testid': 'login-token' },
    h('input', { name: 'token', type: 'password', placeholder: 'super-admin token', required: '', autocomplete: 'off' }),
    h('button', { type: 'submit' }, 'Sign in with the token'),
  );
  tokenForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const token = String(new FormData(tokenForm as HTMLFormElement).get('token'));
    session = { token, label: 'super-admin' };
    // A query only the platform may run proves the token before it is kept.
    gql('{ plans { id } }').then(() => adopt(session!), (err: Error) => ((session = undefined), (status.textContent = err.message)));
  });
  show(h('section', {}, h('h2', {}, 'Sign in'), adminForm, tokenForm, status));
}

/** A plan's or tenant's limit as shown: 0 means unlimited (the tenants service's rule). */
const limit = (max: number) => (max > 0 ? String(max) : '∞');

interface TenantRow {
  id: number;
  name: string;
  status: string;
  plan: { name: string } | null;
  usage: { users: number; maxUsers: number; connections: number; maxConnections: number };
}

async function tenantsView() {
  const data = await gql<{ tenantConnection: { totalCount: number; nodes: TenantRow[] } }>(
    '{ tenantConnection(first: 100) { totalCount nodes { id name status plan { name } usage { users maxUsers connections maxConnections } } } }',
  );
  const { nodes, totalCount } = data.tenantConnection;
  const over = (used: number, max: number) => h('span', max > 0 && used > max ? { class: 'bad' } : {}, `${used} / ${limit(max)}`);
  const payments = h('section', {}, h('h2', {}, 'Payment webhooks'));
  show(
    h(
      'section',
      {},
      h('h2', {}, `Tenants (${totalCount})`),
      table(
        ['Tenant', 'Status', 'Plan', 'Users', 'Connections'],
        nodes.map((t) => [link(`#/tenant/${t.id}`, `${t.id} · ${t.name}`), t.status, t.plan?.name ?? '–', over(t.usage.users, t.usage.maxUsers), over(t.usage.connections, t.usage.maxConnections)]),
        'tenants',
      ),
    ),
    payments,
  );
  await paymentWebhooks(payments);
}

interface PaymentWebhookRow {
  gateway: string;
  eventId: string;
  type: string;
  customerId: string;
  tenantId: number | null;
  status: string;
  outcome: string;
  repeats: number;
  source: string;
  receivedAt: string;
}

/** The platform's latest proven payment webhooks and what each did (super-admin only). */
async function paymentWebhooks(where: HTMLElement) {
  const { paymentWebhooks: rows } = await gql<{ paymentWebhooks: PaymentWebhookRow[] }>(
    '{ paymentWebhooks(limit: 50) { gateway eventId type customerId tenantId status outcome repeats source receivedAt } }',
  );
  where.replaceChildren(
    h('h2', {}, `Payment webhooks (latest ${rows.length})`),
    table(
      ['Received', 'Gateway', 'Event', 'Type', 'Customer', 'Tenant', 'Status', 'Outcome', 'Repeats', 'Source'],
      rows.map((r) => [
        r.receivedAt.replace('T', ' ').slice(0, 19),
        r.gateway,
        r.eventId,
        r.type,
        r.customerId,
        r.tenantId ? link(`#/tenant/${r.tenantId}`, String(r.tenantId)) : '–',
        r.status || '–',
        h('span', r.outcome === 'applied' ? {} : { class: 'bad' }, r.outcome),
        r.repeats,
        r.source,
      ]),
      'payment-webhooks',
    ),
  );
}

interface Health {
  channelId: number;
  queued: number;
  oldestQueuedAgeSeconds: number | null;
  failed: number;
  webhooksPending: number;
  webhooksDead: number;
}
interface Dead {
  id: string;
  channelId: number;
  target: string;
  attempts: number;
  lastError: string;
  status: string;
}

async function tenantView(tenantId: number) {
  const channels = h('section', {}, h('h2', {}, 'Channels and delivery'));
  const dead = h('section', {}, h('h2', {}, 'Dead webhooks'));
  const tickets = h('section', {}, h('h2', {}, 'Tickets'));
  const heading = h('h2', {}, `Tenant ${tenantId}`);
  const refreshFailure = alertLine('refresh-error');
  show(h('section', {}, heading, refreshFailure.el), channels, dead, tickets);

  const { tenant } = await gql<{ tenant: { name: string; usage: TenantRow['usage'] } | null }>(
    'query($id: Int!) { tenant(id: $id) { name usage { users maxUsers connections maxConnections } } }',
    { id: tenantId },
  );
  if (tenant) heading.textContent = `Tenant ${tenantId} · ${tenant.name} · users ${tenant.usage.users}/${limit(tenant.usage.maxUsers)} · connections ${tenant.usage.connections}/${limit(tenant.usage.maxConnections)}`;

  // Queue depth, failures and webhook health, refreshed every few seconds.
  const refresh = async () => {
    const data = await gql<{ channels: { id: number; name: string; type: string; status: string; webhookEnabled: boolean }[]; deliveryHealth: Health[]; webhookDeliveries: Dead[] }>(
      `query($t: Int!, $shown: Int!) {
        channels(tenantId: $t) { id name type status webhookEnabled }
        deliveryHealth(tenantId: $t) { channelId queued oldestQueuedAgeSeconds failed webhooksPending webhooksDead }
        webhookDeliveries(tenantId: $t, status: dead, limit: $shown) { id channelId target attempts lastError status }
      }`,
      { t: tenantId, shown: DEAD_SHOWN },
    );
    const healthOf = new Map(data.deliveryHealth.map((x) => [x.channelId, x]));
    channels.replaceChildren(
      h('h2', {}, 'Channels and delivery'),
      table(
        ['Channel', 'Type', 'Status', 'Webhooks', 'Queued', 'Oldest queued', 'Failed', 'Webhooks pending', 'Webhooks dead'],
        data.channels.map((c) => {
          const x = healthOf.get(c.id);
          return [`${c.id} · ${c.name}`, c.type, c.status, c.webhookEnabled ? 'on' : 'off', x?.queued ?? 0, age(x?.oldestQueuedAgeSeconds ?? null), x?.failed ?? 0, x?.webhooksPending ?? 0, h('span', x?.webhooksDead ? { class: 'bad' } : {}, x?.webhooksDead ?? 0)];
        }),
        'channels',
      ),
    );
    // The list holds the newest DEAD_SHOWN; the count is every dead event of the tenant.
    const deadCount = data.deliveryHealth.reduce((sum, x) => sum + x.webhooksDead, 0);
    const shown = data.webhookDeliveries.length;
    dead.replaceChildren(
      h('h2', { 'data-testid': 'dead-title' }, `Dead webhooks (${deadCount})`),
      ...(shown < deadCount ? [h('p', { 'data-testid': 'dead-partial' }, `Showing the newest ${shown} of ${deadCount}.`)] : []),
      table(
        ['Event', 'Channel', 'Target', 'Attempts', 'Last error', ''],
        data.webhookDeliveries.map((d) => [d.id, d.channelId, d.target, d.attempts, d.lastError, h('button', { 'data-replay': d.id, click: () => replay(tenantId, d.id).then(refreshShown, refreshFailure.show) }, 'Replay')]),
        'dead-webhooks',
      ),
    );
  };
  /** A refresh that failed shows its error in the one line, cleared by the next that succeeds. */
  const refreshShown = () => refresh().then(refreshFailure.clear, refreshFailure.show);
  const mine = viewNumber;
  await refresh();
  if (mine === viewNumber) timer = setInterval(refreshShown, REFRESH_MS);
  await ticketList(tickets, tenantId);
}

const report = (where: HTMLElement) => (err: unknown) => where.append(failure(err));

/**
 * One error line that a view's repeated work (its refresh every few seconds) shows its latest
 * failure in, replacing the one before, and clears once it succeeds again: a failing refresh
 * does not append a message every REFRESH_MS.
 */
function alertLine(testId: string) {
  const el = h('p', { class: 'error', role: 'alert', 'data-testid': testId, hidden: '' });
  return {
    el,
    show: (err: unknown) => {
      el.textContent = err instanceof Error ? err.message : String(err);
      el.hidden = false;
    },
    clear: () => {
      el.textContent = '';
      el.hidden = true;
    },
  };
}

async function replay(tenantId: number, id: string) {
  await gql('mutation($t: Int!, $id: String!) { replayWebhookDelivery(tenantId: $t, id: $id) { id status } }', { t: tenantId, id });
}

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

async function ticketList(where: HTMLElement, tenantId: number) {
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
        data.tickets.nodes.map((t) => [link(`#/tenant/${tenantId}/ticket/${t.id}`, `#${t.id}`), t.status, contactLabel(t.contact), t.channel.name, t.updatedAt]),
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
async function ticketView(tenantId: number, ticketId: number) {
  const mine = viewNumber;
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
    messages.replaceChildren(...nodes.map((m) => h('div', { class: `msg ${m.direction}`, 'data-message': m.id }, m.body, h('small', {}, `${m.direction} · ${m.status} · ${m.createdAt}`))));
  };
  paint(first);
  show(h('section', { 'data-testid': 'conversation' }, heading, summary, refreshFailure.el, messages));
  const refresh = async () => {
    const t = await load();
    if (t) paint(t);
  };
  if (mine === viewNumber) timer = setInterval(() => refresh().then(refreshFailure.clear, refreshFailure.show), REFRESH_MS);
}

// ---- routing --------------------------------------------------------------------------------

function signOut() {
  session = undefined;
  sessionStorage.removeItem(SESSION_KEY);
  location.hash = '#/login';
}

function route() {
  if (timer) clearInterval(timer);
  timer = undefined;
  viewNumber++;
  document.getElementById('who')!.textContent = session ? session.label : '';
  document.getElementById('signout')!.hidden = !session;
  if (!session) return signInView();
  const hash = location.hash.replace(/^#/, '') || '/';
  const ticket = /^\/tenant\/(\d+)\/ticket\/(\d+)$/.exec(hash);
  const tenant = /^\/tenant\/(\d+)$/.exec(hash);
  const view = ticket
    ? ticketView(Number(ticket[1]), Number(ticket[2]))
    : tenant
      ? tenantView(Number(tenant[1]))
      : session.tenantId
        ? tenantView(session.tenantId)
        : tenantsView();
  view.catch((err) => app.append(failure(err)));
}

document.getElementById('signout')!.addEventListener('click', signOut);
window.addEventListener('hashchange', route);
route();
