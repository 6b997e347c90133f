import type { Mesh } from '@convo/dev-mesh';
import { startWebhookReceiver, type WebhookReceiver } from '@convo/test-support';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN_PASSWORD, contactWrites, gql, newDashboardTenant, startDeliveryMesh, type DashboardTenant } from '../support/dashboard';
import { call, eventually } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/** Debian's Chromium (apt-get install chromium; .ci/run installs it): Playwright's own download does not work here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots of each step, kept as test artifacts (ignored by git). */
const SHOTS = join(__dirname, '..', 'artifacts', 'console');

/** A contact writes these texts to the tenant's channel in one engine webhook, one second apart by their timestamps. */
function contactWritesMany(mesh: Mesh, t: DashboardTenant, number: string, texts: string[], firstSecond: number) {
  const messages = texts.map((text, i) => ({
    key: { remoteJid: `${number}@s.whatsapp.net`, fromMe: false, id: `IN-${number}-${firstSecond + i}` },
    messageTimestamp: firstSecond + i,
    pushName: 'Caio',
    message: { conversation: text },
  }));
  return call(`${mesh.gatewayUrl}/webhooks/engine/${t.channelId}?token=engine-secret`, {
    body: { event: 'messages.upsert', data: { type: 'notify', messages } },
  });
}

/** Every dead webhook of the tenant, as deliveryHealth counts them (per channel). */
async function deadCount(mesh: Mesh, t: DashboardTenant): Promise<{ dead: number; pending: number }> {
  const res = await gql(mesh, mesh.superAdminToken, 'query($t: Int!) { deliveryHealth(tenantId: $t) { webhooksDead webhooksPending } }', {
    t: t.id,
  });
  const rows = res.body.data.deliveryHealth as Array<{ webhooksDead: number; webhooksPending: number }>;
  return { dead: rows.reduce((n, r) => n + r.webhooksDead, 0), pending: rows.reduce((n, r) => n + r.webhooksPending, 0) };
}

/**
 * The operator console (/console) in a real browser, on a real mesh: a tenant administrator signs
 * in, sees the channel and its dead webhooks (counted in all, the newest listed), opens a ticket
 * and reads its messages, a long ticket's newest ones kept up to date, keeps one error line while
 * the API fails, replays a webhook and sees it delivered; the super-admin signs in with the token,
 * sees a limit of 0 as unlimited, and opens a tenant.
 */
describe('operator console in Chromium', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let tenant: DashboardTenant;
  let ticketId: number;
  /** A contact's long conversation: 30 older messages, then the 100 newest. */
  let longTicketId: number;
  const LONG_NUMBER = '5511955003344';
  /** A tenant whose connections limit is 0: unlimited. */
  let unlimited: DashboardTenant;
  const crashes: string[] = [];
  const pageErrors: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [engine, receiver] = await Promise.all([startNetworkEngine(), startWebhookReceiver()]);
    mesh = await startDeliveryMesh(startMesh, crashes);
    receiver.answer(() => ({ status: 500 }));
    tenant = await newDashboardTenant(mesh, 'Console', engine.url, {
      webhookEnabled: true,
      webhookUrl: `${receiver.url}/console`,
      webhookIncoming: true,
    });
    // A contact writes (a ticket, and a `message` webhook the customer refuses: dead at once), then the integration answers.
    const inbound = await contactWrites(mesh, tenant, '5511955001122', 'IN-console-1', 'Olá, meu pedido chegou?');
    expect(inbound.status).toBe(200);
    ticketId = inbound.body.data.results[0].ticketId;
    const sent = await call(`${tenant.root}/sendMessageByTicket`, {
      token: tenant.integrationToken,
      body: { ticketId, body: 'Chegou sim, obrigado!' },
    });
    expect(sent.status).toBe(200);
    await eventually('a dead webhook', async () => {
      const res = await gql(mesh, mesh.superAdminToken, 'query($t: Int!) { webhookDeliveries(tenantId: $t, status: dead) { id } }', {
        t: tenant.id,
      });
      return res.body.data?.webhookDeliveries?.length > 0;
    });
    // Another contact's long conversation (its 130 `message` webhooks die too: more than the console lists).
    const older = await contactWritesMany(
      mesh,
      tenant,
      LONG_NUMBER,
      Array.from({ length: 30 }, (_, i) => `older ${i}`),
      1718100000,
    );
    expect(older.status).toBe(200);
    longTicketId = older.body.data.results[0].ticketId;
    for (let batch = 0; batch < 4; batch++) {
      const texts = Array.from({ length: 25 }, (_, i) => `newer ${batch * 25 + i}`);
      expect((await contactWritesMany(mesh, tenant, LONG_NUMBER, texts, 1718200000 + batch * 25)).status).toBe(200);
    }
    await eventually(
      'every webhook of the long conversation dead',
      async () => {
        const { dead, pending } = await deadCount(mesh, tenant);
        return dead >= 131 && pending === 0;
      },
      60_000,
    );
    unlimited = await newDashboardTenant(mesh, 'Unlimited', engine.url);
    const updated = await gql(
      mesh,
      mesh.superAdminToken,
      'mutation($id: Int!) { updateTenant(id: $id, maxConnections: 0) { maxConnections } }',
      { id: unlimited.id },
    );
    expect(updated.body.data.updateTenant.maxConnections).toBe(0);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // A refused sign-in is logged by the browser as a failed resource: expected, not a page error.
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && pageErrors.push(m.text()));
  });

  afterAll(async () => {
    await browser?.close();
    await mesh?.stop();
    await Promise.all([engine?.close(), receiver?.close()]);
  });

  afterEach(() => {
    expect(crashes).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('serves the console with a strict content security policy', async () => {
    const res = await fetch(`${mesh.gatewayUrl}/console/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect((await fetch(`${mesh.gatewayUrl}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
  });

  it("signs a tenant administrator in and shows the tenant's channel, its dead webhook and its tickets", async () => {
    await page.goto(`${mesh.gatewayUrl}/console/`);
    await page.fill('[data-testid=login-admin] input[name=email]', tenant.email);
    await page.fill('[data-testid=login-admin] input[name=password]', ADMIN_PASSWORD);
    await page.click('[data-testid=login-admin] button');
    await page.waitForSelector('[data-testid=channels] tbody tr');
    expect(await page.textContent('[data-testid=channels]')).toContain('Console line');
    await page.waitForSelector('[data-testid=dead-webhooks] tbody tr');
    // Every dead webhook counted (deliveryHealth), the newest 50 listed, and the page says so.
    const { dead } = await deadCount(mesh, tenant);
    expect(dead).toBeGreaterThanOrEqual(131);
    await page.locator('[data-testid=dead-title]', { hasText: `Dead webhooks (${dead})` }).waitFor();
    expect(await page.textContent('[data-testid=dead-partial]')).toBe(`Showing the newest 50 of ${dead}.`);
    expect(await page.locator('[data-testid=dead-webhooks] tbody tr').count()).toBe(50);
    await page.waitForSelector(`[data-testid=tickets] a[href$="/ticket/${ticketId}"]`);
    await shot('1-tenant');
  });

  it('keeps one error line while the refresh fails, and clears it when the API answers again', async () => {
    let failed = 0;
    await page.route('**/graphql', (route) => {
      failed++;
      return route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'ERR_UNAVAILABLE', message: 'Service unavailable' }),
      });
    });
    await page.locator('[data-testid=refresh-error]', { hasText: 'ERR_UNAVAILABLE: Service unavailable' }).waitFor();
    // Three more refreshes fail: still the one line, no message appended.
    await eventually('three more failed refreshes', () => failed >= 4, 20_000);
    expect(await page.locator('.error').count()).toBe(1);
    expect(await page.locator('[data-testid=refresh-error]').isVisible()).toBe(true);
    await shot('1b-refresh-failing');
    await page.unroute('**/graphql');
    await page.waitForSelector('[data-testid=refresh-error]', { state: 'hidden', timeout: 10_000 });
    expect(await page.locator('.error:visible').count()).toBe(0);
  });

  it('opens a ticket and reads its conversation, both directions', async () => {
    await page.click(`[data-testid=tickets] a[href$="/ticket/${ticketId}"]`);
    await page.waitForSelector('[data-testid=conversation] .msg');
    const conversation = await page.textContent('[data-testid=conversation]');
    expect(conversation).toContain('Olá, meu pedido chegou?');
    expect(conversation).toContain('Chegou sim, obrigado!');
    expect(await page.locator('[data-testid=conversation] .msg.in').count()).toBe(1);
    expect(await page.locator('[data-testid=conversation] .msg.out').count()).toBe(1);
    await shot('2-ticket');
  });

  it("shows a long ticket's newest messages, oldest of them first, and keeps them up to date", async () => {
    await page.goto(`${mesh.gatewayUrl}/console/#/tenant/${tenant.id}/ticket/${longTicketId}`);
    await page.locator('[data-testid=conversation] .msg', { hasText: 'newer 99' }).waitFor();
    const bodies = async () =>
      await page.locator('[data-testid=conversation] .msg').evaluateAll((els) => els.map((e) => e.firstChild?.textContent ?? ''));
    expect(await bodies()).toEqual(Array.from({ length: 100 }, (_, i) => `newer ${i}`));
    expect(await page.textContent('[data-testid=conversation]')).toContain('130 messages, the newest 100 shown');
    // The contact writes again: the open conversation shows it within a refresh or two, the oldest shown leaves.
    expect((await contactWritesMany(mesh, tenant, LONG_NUMBER, ['the newest of all'], 1718300000)).status).toBe(200);
    await page.locator('[data-testid=conversation] .msg', { hasText: 'the newest of all' }).waitFor({ timeout: 15_000 });
    const now = await bodies();
    expect(now).toHaveLength(100);
    expect(now[0]).toBe('newer 1');
    expect(now[99]).toBe('the newest of all');
    expect(await page.textContent('[data-testid=conversation]')).toContain('131 messages, the newest 100 shown');
    await shot('2b-long-ticket');
    // Back where the next step expects the browser: the first ticket, opened from the tenant.
    await page.goto(`${mesh.gatewayUrl}/console/#/tenant/${tenant.id}`);
    await page.waitForSelector('[data-testid=dead-webhooks] tbody tr');
    await page.goto(`${mesh.gatewayUrl}/console/#/tenant/${tenant.id}/ticket/${ticketId}`);
    await page.waitForSelector('[data-testid=conversation] .msg');
  });

  it('replays a dead webhook from the console and sees it delivered', async () => {
    await page.goBack();
    await page.waitForSelector('[data-testid=dead-webhooks] button[data-replay]');
    const id = await page.getAttribute('[data-testid=dead-webhooks] button[data-replay]', 'data-replay');
    const before = receiver.delivered().length;
    receiver.answer(() => ({ status: 200 }));
    await page.click(`[data-testid=dead-webhooks] button[data-replay="${id}"]`);
    await eventually('the replayed webhook delivered', async () => {
      const res = await gql(mesh, tenant.session, 'query($t: Int!, $id: String!) { webhookDelivery(tenantId: $t, id: $id) { status } }', {
        t: tenant.id,
        id,
      });
      return res.body.data.webhookDelivery.status === 'delivered';
    });
    expect(receiver.delivered().length).toBeGreaterThan(before);
    // The page refreshes itself: the replayed webhook leaves the dead list.
    await page.waitForSelector(`[data-testid=dead-webhooks] button[data-replay="${id}"]`, { state: 'detached', timeout: 10_000 });
    await shot('3-replayed');
  });

  it('signs the super-admin in with the token, lists tenants with their usage and opens one', async () => {
    await page.click('#signout');
    await page.fill('[data-testid=login-token] input[name=token]', mesh.superAdminToken);
    await page.click('[data-testid=login-token] button');
    await page.waitForSelector(`[data-testid=tenants] a[href="#/tenant/${tenant.id}"]`);
    expect(await page.textContent('[data-testid=tenants]')).toContain('1 / 5');
    // A limit of 0 is unlimited: shown as such, never as over it.
    const row = page.locator('[data-testid=tenants] tbody tr', { has: page.locator(`a[href="#/tenant/${unlimited.id}"]`) });
    expect(await row.textContent()).toContain('1 / ∞');
    expect(await row.locator('.bad').count()).toBe(0);
    // The payment webhooks operators look at (their content: e2e/payments.test.ts, through GraphQL).
    await page.waitForSelector('[data-testid=payment-webhooks] thead');
    await page.click(`[data-testid=tenants] a[href="#/tenant/${tenant.id}"]`);
    await page.waitForSelector('[data-testid=channels] tbody tr');
    await shot('4-super-admin');
  });

  it('opens the GraphQL explorer from the console, served by the gateway alone, and runs a query with the session', async () => {
    const foreign: string[] = [];
    const watch = (req: { url(): string }) =>
      !req.url().startsWith(mesh.gatewayUrl) && !req.url().startsWith('data:') && foreign.push(req.url());
    page.on('request', watch);
    await page.click('#explorer');
    await page.waitForSelector('.graphiql-container');
    await page.click('.graphiql-execute-button');
    await page.locator('.result-window', { hasText: 'totalCount' }).waitFor();
    expect(await page.textContent('.result-window')).toContain('"Console"');
    await shot('5-explorer');
    page.off('request', watch);
    expect(foreign).toEqual([]);
    // Back in the console, the session is still there (the tab's sessionStorage).
    await page.goBack();
    await page.waitForSelector('[data-testid=channels] tbody tr');
  });

  it('sends a browser opening /graphql to the explorer; an API client still gets JSON', async () => {
    const html = await fetch(`${mesh.gatewayUrl}/graphql`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(html.status).toBe(302);
    expect(html.headers.get('location')).toBe('/graphql/explorer/');
    const api = await fetch(`${mesh.gatewayUrl}/graphql?query=%7B__typename%7D`, { headers: { accept: 'application/json' } });
    expect(api.status).toBe(401);
    const page_ = await fetch(`${mesh.gatewayUrl}/graphql/explorer/`);
    expect(page_.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('refuses a wrong password and a wrong token, and shows why', async () => {
    await page.click('#signout');
    await page.fill('[data-testid=login-admin] input[name=email]', tenant.email);
    await page.fill('[data-testid=login-admin] input[name=password]', 'wrong-password');
    await page.click('[data-testid=login-admin] button');
    await page.waitForSelector('[role=alert]:not(:empty)');
    await page.fill('[data-testid=login-token] input[name=token]', 'not-the-token-at-all');
    await page.click('[data-testid=login-token] button');
    await page.locator('[role=alert]', { hasText: 'ERR_UNAUTHORIZED' }).waitFor();
    expect(page.url()).toMatch(/#\/login$|\/console\/$/);
  });
});
