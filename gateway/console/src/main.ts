// The operator console: a single page on the GraphQL API alone (docs/api/console.md).
// Signed in with the super-admin token it sees every tenant; a tenant's administrator (e-mail and
// password of tenantApiStoreTenant, POST /graphql/login) sees that tenant only. Everything shown
// is set with textContent: nothing read from the API becomes markup.
// This file: signing in, the tenants, one tenant, routing; tickets.ts: tickets and a conversation;
// view.ts: what the views share.

import { age, failure, h, link, table } from './dom.js';
import { ticketList, ticketView } from './tickets.js';
import {
  alertLine,
  app,
  currentSession,
  currentView,
  gql,
  keepSession,
  login,
  newView,
  refreshEvery,
  show,
  signOut,
  type Session,
} from './view.js';

/** Dead webhooks listed at once (the newest); the heading counts them all. */
const DEAD_SHOWN = 50;

// ---- views ----------------------------------------------------------------------------------

function signInView() {
  const status = h('p', { class: 'error', role: 'alert' });
  const adopt = (s: Session) => {
    keepSession(s);
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
    const candidate = { token, label: 'super-admin' };
    keepSession(candidate);
    // A query only the platform may run proves the token before it is kept.
    gql('{ plans { id } }').then(
      () => adopt(candidate),
      (err: Error) => (keepSession(undefined), (status.textContent = err.message)),
    );
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
        nodes.map((t) => [
          link(`#/tenant/${t.id}`, `${t.id} · ${t.name}`),
          t.status,
          t.plan?.name ?? '–',
          over(t.usage.users, t.usage.maxUsers),
          over(t.usage.connections, t.usage.maxConnections),
        ]),
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
  if (tenant)
    heading.textContent = `Tenant ${tenantId} · ${tenant.name} · users ${tenant.usage.users}/${limit(tenant.usage.maxUsers)} · connections ${tenant.usage.connections}/${limit(tenant.usage.maxConnections)}`;

  // Queue depth, failures and webhook health, refreshed every few seconds.
  const refresh = async () => {
    const data = await gql<{
      channels: { id: number; name: string; type: string; status: string; webhookEnabled: boolean }[];
      deliveryHealth: Health[];
      webhookDeliveries: Dead[];
    }>(
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
          return [
            `${c.id} · ${c.name}`,
            c.type,
            c.status,
            c.webhookEnabled ? 'on' : 'off',
            x?.queued ?? 0,
            age(x?.oldestQueuedAgeSeconds ?? null),
            x?.failed ?? 0,
            x?.webhooksPending ?? 0,
            h('span', x?.webhooksDead ? { class: 'bad' } : {}, x?.webhooksDead ?? 0),
          ];
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
        data.webhookDeliveries.map((d) => [
          d.id,
          d.channelId,
          d.target,
          d.attempts,
          d.lastError,
          h('button', { 'data-replay': d.id, click: () => replay(tenantId, d.id).then(refreshShown, refreshFailure.show) }, 'Replay'),
        ]),
        'dead-webhooks',
      ),
    );
  };
  /** A refresh that failed shows its error in the one line, cleared by the next that succeeds. */
  const refreshShown = () => refresh().then(refreshFailure.clear, refreshFailure.show);
  const mine = currentView();
  await refresh();
  refreshEvery(mine, refreshShown);
  await ticketList(tickets, tenantId);
}

async function replay(tenantId: number, id: string) {
  await gql('mutation($t: Int!, $id: String!) { replayWebhookDelivery(tenantId: $t, id: $id) { id status } }', { t: tenantId, id });
}

// ---- routing --------------------------------------------------------------------------------

function route() {
  newView();
  const session = currentSession();
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
