import type { Mesh } from '@convo/dev-mesh';
import { createServer, type Server } from 'node:http';
import type { Recorded } from '../support/fake-engine';
import { call, eventually, settled, UNPACED, type Reply } from '../support/http';
import { hubSignature, postMeta, wabaEnvelope, wabaText } from '../support/meta-webhooks';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

/**
 * Every interactive route through the REST facade of the real mesh, and the exact request each
 * provider receives: one loopback server stands in for all of them (an engine_a server under /a,
 * Evolution API under /b, uazapi under /c, the Graph API under /graph) and records what it gets.
 * Wire formats: shared/reference/provider-formats.md, docs/channels/engines-abc.md, docs/channels/providers-meta.md.
 */

interface Providers {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/** Answers every call with the id field each provider's answer has, so any driver finds its id. */
async function startProviders(): Promise<Providers> {
  const requests: Recorded[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: raw ? JSON.parse(raw) : null });
      const id = `PROV-${++n}`;
      const body = {
        key: { id, fromMe: true },
        messageid: id,
        messages: [{ id }],
        recipient_id: 'r',
        message_id: id,
        attachment_id: `ATT-${n}`,
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Kind = 'engine_a' | 'engine_b' | 'engine_c' | 'waba' | 'social_a' | 'social_b';

interface Integration {
  channelId: number;
  root: string;
  token: string;
}

const WABA_PHONE_ID = '1029384756';
const META_APP_SECRET = 'meta-app-secret-for-interactive';
const PAGE_ID = '5550001112223';
const CPF = '529.982.247-25';

describe('interactive messages, end to end', () => {
  let mesh: Mesh;
  let providers: Providers;
  const crashes: string[] = [];
  const api = {} as Record<Kind, Integration>;
  /** One open ticket per channel kind, and its contact. */
  const ticket = {} as Record<Kind, { id: number; to: string }>;
  let lastNumber = 0;
  const newNumber = () => `55119${String(60_000_000 + ++lastNumber)}`;

  const post = (kind: Kind, path: string, body: unknown) => call(`${api[kind].root}${path}`, { token: api[kind].token, body });
  const sent = () => providers.requests.slice(mark);
  let mark = 0;

  /** A route that succeeds: 200 with the envelope, and exactly one provider request, returned. */
  async function sendOk(kind: Kind, path: string, body: Record<string, unknown>, requests = 1): Promise<{ res: Reply; req: Recorded }> {
    mark = providers.requests.length;
    const res = await post(kind, path, body);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: { success: true, data: { message: expect.any(String), ticketId: expect.any(Number), messageId: expect.any(String) } },
    });
    // Accepted; the dispatcher then delivers it.
    await eventually('the provider request', () => sent().length >= requests);
    expect(sent()).toHaveLength(requests);
    return { res, req: sent().at(-1)! };
  }

  /**
   * A waba contact writes (a signed Meta webhook, timestamped now): its 24-hour window opens, and
   * with it free-form messages (text, buttons, lists). Answers the ticket the message opened.
   */
  async function wabaWrites(number: string): Promise<number> {
    const now = String(Math.floor(Date.now() / 1000));
    const raw = JSON.stringify(
      wabaEnvelope(WABA_PHONE_ID, {
        contacts: [{ profile: { name: 'C' }, wa_id: number }],
        messages: [wabaText(number, `wamid.IN-${number}-${now}`, 'Hi', now)],
      }),
    );
    const res = await postMeta(mesh.gatewayUrl, raw, hubSignature(raw, META_APP_SECRET));
    expect(res.status).toBe(200);
    return res.body.data?.results?.[0]?.ticketId || (await post('waba', '/showallticket', { number })).body.data.tickets[0].id;
  }

  /** createTicket, once its first message has been delivered (so that it is not taken for a later send's). */
  async function openTicket(kind: Kind, number: string, body = 'Hello') {
    // A waba conversation starts with the contact (or a template): the contact writes first.
    if (kind === 'waba') await post('waba', '/updateticketinfo', { ticketId: await wabaWrites(number), status: 'closed' });
    const created = await post(kind, '/createTicket', { number, body });
    expect(created.status).toBe(200);
    await settled(api[kind].root, api[kind].token, created.body.data.messageId);
    return created;
  }

  /** A route that fails: the status, the code, the fields named in details, and nothing sent. */
  async function sendFails(kind: Kind, path: string, body: unknown, status: number, error: string, fields: string[] = []) {
    mark = providers.requests.length;
    const res = await post(kind, path, body);
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
    for (const field of fields) expect(res.body.details?.map((d: { field: string }) => d.field)).toContain(field);
    expect(sent()).toEqual([]);
    return res;
  }

  /** Baileys' native-flow buttons, with each buttonParamsJson parsed. */
  const nativeButtons = (req: Recorded) =>
    req.body.content.interactiveMessage.nativeFlowMessage.buttons.map((b: { name: string; buttonParamsJson: string }) => ({
      name: b.name,
      params: JSON.parse(b.buttonParamsJson),
    }));

  beforeAll(async () => {
    providers = await startProviders();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
      env: { META_GRAPH_URL: `${providers.url}/graph`, META_APP_SECRET, ...UNPACED },
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Interactive Co',
        maxUsers: 5,
        maxConnections: 10,
        acceptTerms: true,
        email: 'owner@interactive.example',
        password: 'S3cure!pass',
        userName: 'Ana',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const tenantId = tenant.body.data.tenant.id;
    const channels: Record<Kind, Record<string, string>> = {
      engine_a: { engineUrl: `${providers.url}/a`, engineToken: 'a-token' },
      engine_b: { engineUrl: `${providers.url}/b/acme`, engineToken: 'b-key' },
      engine_c: { engineUrl: `${providers.url}/c`, engineToken: 'c-token' },
      waba: { tokenAPI: WABA_PHONE_ID, wabaId: '77', bmToken: 'bm-token' },
      social_a: { pageId: PAGE_ID, pageToken: 'page-token' },
      social_b: { pageId: PAGE_ID, pageToken: 'page-token' },
    };
    for (const [type, fields] of Object.entries(channels) as Array<[Kind, Record<string, string>]>) {
      const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
        token: admin,
        body: { tenant: tenantId, name: type, type, ...fields },
      });
      expect(session.status).toBe(200);
      const { apiId, authToken } = session.body.data.api;
      api[type] = { channelId: session.body.data.whatsapp.id, root: `${mesh.gatewayUrl}/v2/api/external/${apiId}`, token: authToken };
      // Social contacts are page-scoped ids; numbers of 13 digits stand in for them here.
      const to = newNumber();
      const created = await openTicket(type, to, 'Hello!');
      ticket[type] = { id: created.body.data.ticketId, to };
    }
  });

  afterAll(async () => {
    await mesh?.stop();
    await providers?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  // ---- engine_a: Baileys native flow ----------------------------------------------------------

  describe('engine_a (Baileys native flow: POST {engine}/messages)', () => {
    const send = (type: string, body: Record<string, unknown>) =>
      sendOk('engine_a', `/sendInteractive/engine_a/${type}`, { ticketId: ticket.engine_a.id, ...body });

    it('quickReply → interactiveMessage with quick_reply buttons', async () => {
      const { res, req } = await send('quickReply', {
        body: { text: 'Did it arrive?' },
        footer: { text: 'Order 42' },
        buttons: [
          { display_text: 'Yes', id: 'yes' },
          { display_text: 'No', id: 'no' },
        ],
      });
      expect(req.url).toBe('/a/messages');
      expect(req.headers.authorization).toBe('Bearer a-token');
      expect(req.body).toMatchObject({ jid: `${ticket.engine_a.to}@s.whatsapp.net`, options: { messageId: res.body.data.messageId } });
      expect(req.body.content.interactiveMessage).toMatchObject({ body: { text: 'Did it arrive?' }, footer: { text: 'Order 42' } });
      expect(nativeButtons(req)).toEqual([
        { name: 'quick_reply', params: { display_text: 'Yes', id: 'yes' } },
        { name: 'quick_reply', params: { display_text: 'No', id: 'no' } },
      ]);
      expect(res.body.data.ticketId).toBe(ticket.engine_a.id);
    });

    it('singleSelect → one single_select button with the sections and rows', async () => {
      const { req } = await send('singleSelect', {
        body: { text: 'Pick a size' },
        list: {
          title: 'Sizes',
          sections: [
            {
              title: 'Shirts',
              rows: [
                { id: 's', title: 'Small', description: '48 cm' },
                { id: 'm', title: 'Medium', description: '52 cm' },
              ],
            },
          ],
        },
      });
      expect(req.body.content.interactiveMessage.body).toEqual({ text: 'Pick a size' });
      expect(nativeButtons(req)).toEqual([
        {
          name: 'single_select',
          params: {
            title: 'Sizes',
            sections: [
              {
                title: 'Shirts',
                rows: [
                  { id: 's', title: 'Small', description: '48 cm' },
                  { id: 'm', title: 'Medium', description: '52 cm' },
                ],
              },
            ],
          },
        },
      ]);
    });

    it('pixButton → payment_info with a static PIX key, the CPF mask removed', async () => {
      const { req } = await send('pixButton', { pixType: 'CPF', pixKey: CPF, pixName: 'Acme Ltda' });
      const [button] = nativeButtons(req);
      expect(button.name).toBe('payment_info');
      expect(button.params).toMatchObject({
        currency: 'BRL',
        payment_settings: [
          { type: 'pix_static_code', pix_static_code: { merchant_name: 'Acme Ltda', key: '52998224725', key_type: 'CPF' } },
        ],
      });
    });

    it('ctaCopy, ctaUrl and ctaCall → cta_copy, cta_url and cta_call', async () => {
      const copy = await send('ctaCopy', { body: { text: 'Your coupon' }, displayText: 'Copy code', copyCode: 'SAVE10' });
      expect(nativeButtons(copy.req)).toEqual([{ name: 'cta_copy', params: { display_text: 'Copy code', copy_code: 'SAVE10' } }]);

      const url = await send('ctaUrl', { body: { text: 'Track it' }, displayText: 'Track', url: 'https://shop.example/track/42' });
      expect(nativeButtons(url.req)).toEqual([
        {
          name: 'cta_url',
          params: { display_text: 'Track', url: 'https://shop.example/track/42', merchant_url: 'https://shop.example/track/42' },
        },
      ]);

      const callMe = await send('ctaCall', {
        body: { text: 'Call us' },
        footer: { text: '24 h' },
        displayText: 'Call',
        phoneNumber: '+5511987654321',
      });
      expect(callMe.req.body.content.interactiveMessage.footer).toEqual({ text: '24 h' });
      expect(nativeButtons(callMe.req)).toEqual([{ name: 'cta_call', params: { display_text: 'Call', phone_number: '+5511987654321' } }]);
    });
  });

  // ---- engine_b: Evolution API v2 -------------------------------------------------------------

  describe('engine_b (Evolution API: POST {server}/message/<endpoint>/{instance})', () => {
    const send = (type: string, body: Record<string, unknown>) =>
      sendOk('engine_b', `/sendInteractive/engine_b/${type}`, { ticketId: ticket.engine_b.id, ...body });

    it('quickReply → sendButtons with reply buttons, the body as title', async () => {
      const { req } = await send('quickReply', {
        body: { text: 'Did it arrive?' },
        footer: { text: 'Order 42' },
        buttons: [{ display_text: 'Yes', id: 'yes' }],
      });
      expect(req.url).toBe('/b/message/sendButtons/acme');
      expect(req.headers.apikey).toBe('b-key');
      expect(req.body).toEqual({
        number: ticket.engine_b.to,
        title: 'Did it arrive?',
        footer: 'Order 42',
        buttons: [{ type: 'reply', displayText: 'Yes', id: 'yes' }],
      });
    });

    it('singleSelect → sendList', async () => {
      const { req } = await send('singleSelect', {
        body: { text: 'Pick a size' },
        list: { title: 'Sizes', sections: [{ title: 'Shirts', rows: [{ id: 's', title: 'Small', description: '48 cm' }] }] },
      });
      expect(req.url).toBe('/b/message/sendList/acme');
      expect(req.body).toMatchObject({
        number: ticket.engine_b.to,
        description: 'Pick a size',
        buttonText: 'Sizes',
        sections: [{ title: 'Shirts', rows: [{ title: 'Small', description: '48 cm', rowId: 's' }] }],
      });
    });

    it("pixButton → sendButtons with one pix button, in Evolution's key type spelling", async () => {
      const { req } = await send('pixButton', { pixType: 'EVP', pixKey: '123E4567-E89B-12D3-A456-426614174000', pixName: 'Acme' });
      expect(req.url).toBe('/b/message/sendButtons/acme');
      expect(req.body.buttons).toEqual([
        { type: 'pix', currency: 'BRL', name: 'Acme', keyType: 'random', key: '123e4567-e89b-12d3-a456-426614174000' },
      ]);
    });

    it('ctaCopy, ctaUrl and ctaCall → sendButtons with copy, url and call buttons', async () => {
      const copy = await send('ctaCopy', { body: { text: 'Coupon' }, displayText: 'Copy', copyCode: 'SAVE10' });
      expect(copy.req.body.buttons).toEqual([{ type: 'copy', displayText: 'Copy', copyCode: 'SAVE10' }]);
      const url = await send('ctaUrl', { body: { text: 'Track' }, displayText: 'Track', url: 'https://shop.example/t' });
      expect(url.req.body.buttons).toEqual([{ type: 'url', displayText: 'Track', url: 'https://shop.example/t' }]);
      const phone = await send('ctaCall', { body: { text: 'Call' }, displayText: 'Call', phoneNumber: '+5511987654321' });
      expect(phone.req.body.buttons).toEqual([{ type: 'call', displayText: 'Call', phoneNumber: '+5511987654321' }]);
    });

    it('poll → sendPoll with the options as values', async () => {
      const { req } = await send('poll', { name: 'Best day?', options: ['Mon', 'Tue', 'Wed'], selectableCount: 1 });
      expect(req.url).toBe('/b/message/sendPoll/acme');
      expect(req.body).toEqual({ number: ticket.engine_b.to, name: 'Best day?', selectableCount: 1, values: ['Mon', 'Tue', 'Wed'] });
    });
  });

  // ---- engine_c: uazapi -----------------------------------------------------------------------

  describe('engine_c (uazapi)', () => {
    const send = (type: string, body: Record<string, unknown>) =>
      sendOk('engine_c', `/sendInteractive/engine_c/${type}`, { ticketId: ticket.engine_c.id, ...body });

    it('button → /send/menu type button', async () => {
      const { req } = await send('button', {
        text: 'Choose',
        choices: ['Yes|yes', 'Site|https://shop.example'],
        footerText: 'Acme',
        imageButton: 'https://cdn.example/a.jpg',
      });
      expect(req.url).toBe('/c/send/menu');
      expect(req.headers.token).toBe('c-token');
      expect(req.body).toEqual({
        number: ticket.engine_c.to,
        type: 'button',
        text: 'Choose',
        choices: ['Yes|yes', 'Site|https://shop.example'],
        footerText: 'Acme',
        imageButton: 'https://cdn.example/a.jpg',
      });
    });

    it('list → /send/menu type list', async () => {
      const { req } = await send('list', { text: 'Menu', choices: ['[Drinks]', 'Tea|tea|Hot', 'Juice|juice'], listButton: 'Open' });
      expect(req.body).toEqual({
        number: ticket.engine_c.to,
        type: 'list',
        text: 'Menu',
        choices: ['[Drinks]', 'Tea|tea|Hot', 'Juice|juice'],
        listButton: 'Open',
      });
    });

    it('poll → /send/menu type poll', async () => {
      const { req } = await send('poll', { text: 'Best day?', choices: ['Mon', 'Tue'], selectableCount: 1 });
      expect(req.body).toEqual({
        number: ticket.engine_c.to,
        type: 'poll',
        text: 'Best day?',
        choices: ['Mon', 'Tue'],
        selectableCount: 1,
      });
    });

    it("carousel → /send/carousel, a URL button's link in its id", async () => {
      const { req } = await send('carousel', {
        text: 'Our picks',
        carousel: [
          {
            text: 'Shirt',
            image: 'https://cdn.example/shirt.jpg',
            buttons: [
              { text: 'Buy', type: 'REPLY', id: 'buy-shirt' },
              { text: 'See', type: 'URL', url: 'https://shop.example/shirt' },
            ],
          },
          { text: 'Cap', image: 'https://cdn.example/cap.jpg', buttons: [{ text: 'Buy cap', type: 'REPLY' }] },
        ],
      });
      expect(req.url).toBe('/c/send/carousel');
      expect(req.body).toEqual({
        number: ticket.engine_c.to,
        text: 'Our picks',
        carousel: [
          {
            text: 'Shirt',
            image: 'https://cdn.example/shirt.jpg',
            buttons: [
              { id: 'buy-shirt', text: 'Buy', type: 'REPLY' },
              { id: 'https://shop.example/shirt', text: 'See', type: 'URL' },
            ],
          },
          { text: 'Cap', image: 'https://cdn.example/cap.jpg', buttons: [{ id: 'Buy cap', text: 'Buy cap', type: 'REPLY' }] },
        ],
      });
    });

    it('pixButton → /send/pix-button', async () => {
      const { req } = await send('pixButton', { pixType: 'PHONE', pixKey: '+55 11 98765-4321', pixName: 'Acme' });
      expect(req.url).toBe('/c/send/pix-button');
      expect(req.body).toEqual({ number: ticket.engine_c.to, pixType: 'PHONE', pixKey: '+5511987654321', pixName: 'Acme' });
    });

    it('locationButton → /send/location-button', async () => {
      const { req } = await send('locationButton', { text: 'Where are you?' });
      expect(req.url).toBe('/c/send/location-button');
      expect(req.body).toEqual({ number: ticket.engine_c.to, text: 'Where are you?' });
    });

    it('requestPayment → /send/request-payment', async () => {
      const { req } = await send('requestPayment', {
        amount: 129.9,
        title: 'Order 42',
        text: 'Two shirts',
        footer: 'Acme',
        itemName: 'Shirts',
        invoiceNumber: 'INV-42',
        pixType: 'CNPJ',
        pixKey: '11.222.333/0001-81',
        pixName: 'Acme Ltda',
      });
      expect(req.url).toBe('/c/send/request-payment');
      expect(req.body).toEqual({
        number: ticket.engine_c.to,
        amount: 129.9,
        title: 'Order 42',
        text: 'Two shirts',
        footer: 'Acme',
        itemName: 'Shirts',
        invoiceNumber: 'INV-42',
        pixType: 'CNPJ',
        pixKey: '11222333000181',
        pixName: 'Acme Ltda',
      });
    });
  });

  // ---- waba: Cloud API ------------------------------------------------------------------------

  describe('waba (Cloud API: POST {graph}/{phone-number-id}/messages)', () => {
    it("sendButtonWABA → reply buttons whose ids are the titles, on the contact's current ticket", async () => {
      const { res, req } = await sendOk('waba', '/sendButtonWABA', {
        number: `+${ticket.waba.to}`,
        message: 'Confirm?',
        button1: 'Yes',
        button2: 'No',
        button3: 'Later',
      });
      expect(req.url).toBe(`/graph/${WABA_PHONE_ID}/messages`);
      expect(req.headers.authorization).toBe('Bearer bm-token');
      expect(req.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: ticket.waba.to,
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: 'Confirm?' },
          action: {
            buttons: [
              { type: 'reply', reply: { id: 'Yes', title: 'Yes' } },
              { type: 'reply', reply: { id: 'No', title: 'No' } },
              { type: 'reply', reply: { id: 'Later', title: 'Later' } },
            ],
          },
        },
      });
      expect(res.body.data.ticketId).toBe(ticket.waba.id);
    });

    it('sendListWABA → a list message', async () => {
      const { req } = await sendOk('waba', '/sendListWABA', {
        number: ticket.waba.to,
        header: 'Menu',
        body: 'Pick a size',
        footer: 'BRL',
        button_text: 'Sizes',
        sections: [
          {
            title: 'Shirts',
            rows: [
              { id: 'S', title: 'Small', description: '48 cm' },
              { id: 'M', title: 'Medium' },
            ],
          },
        ],
      });
      expect(req.body).toEqual({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: ticket.waba.to,
        type: 'interactive',
        interactive: {
          type: 'list',
          header: { type: 'text', text: 'Menu' },
          body: { text: 'Pick a size' },
          footer: { text: 'BRL' },
          action: {
            button: 'Sizes',
            sections: [
              {
                title: 'Shirts',
                rows: [
                  { id: 'S', title: 'Small', description: '48 cm' },
                  { id: 'M', title: 'Medium' },
                ],
              },
            ],
          },
        },
      });
    });

    it('opens a pending ticket for a number without one, and reuses it', async () => {
      const number = newNumber();
      // The contact wrote (its window is open) and that conversation was closed.
      await post('waba', '/updateticketinfo', { ticketId: await wabaWrites(number), status: 'closed' });
      const first = await sendOk('waba', '/sendButtonWABA', { number, message: 'Hi', button1: 'A', button2: 'B' });
      const again = await sendOk('waba', '/sendButtonWABA', { number, message: 'Hi', button1: 'A', button2: 'B' });
      expect(again.res.body.data.ticketId).toBe(first.res.body.data.ticketId);
      const shown = await post('waba', '/showTicketById', { ticketId: first.res.body.data.ticketId });
      expect(shown.body.data).toMatchObject({ status: 'pending', whatsappId: api.waba.channelId, contact: { number } });
    });

    it('refuses buttons and lists to a contact outside its 24-hour window: 409 ERR_OUTSIDE_WINDOW, no ticket, nothing sent', async () => {
      const number = newNumber();
      await sendFails('waba', '/sendButtonWABA', { number, message: 'Hi', button1: 'A', button2: 'B' }, 409, 'ERR_OUTSIDE_WINDOW');
      await sendFails(
        'waba',
        '/sendListWABA',
        { number, body: 'Pick', button_text: 'Open', sections: [{ title: 'S', rows: [{ id: '1', title: 'One' }] }] },
        409,
        'ERR_OUTSIDE_WINDOW',
      );
      expect((await post('waba', '/showallticket', { number })).body.data.count).toBe(0);
    });

    it("pins the message to the contact's ticket, and refuses another contact's (404) or a closed one (409)", async () => {
      const pinned = await sendOk('waba', '/sendButtonWABA', {
        number: ticket.waba.to,
        ticketId: ticket.waba.id,
        message: 'Hi',
        button1: 'A',
        button2: 'B',
      });
      expect(pinned.res.body.data.ticketId).toBe(ticket.waba.id);

      await sendFails(
        'waba',
        '/sendButtonWABA',
        { number: newNumber(), ticketId: ticket.waba.id, message: 'Hi', button1: 'A', button2: 'B' },
        404,
        'ERR_TICKET_NOT_FOUND',
      );

      const number = newNumber();
      const created = await openTicket('waba', number);
      await post('waba', '/updateticketinfo', { ticketId: created.body.data.ticketId, status: 'closed' });
      await sendFails(
        'waba',
        '/sendListWABA',
        {
          number,
          ticketId: created.body.data.ticketId,
          body: 'Pick',
          button_text: 'Open',
          sections: [{ title: 'S', rows: [{ id: '1', title: 'One' }] }],
        },
        409,
        'ERR_TICKET_CLOSED',
      );
    });
  });

  // ---- social_a (Instagram) and social_b (Messenger): Send API --------------------------------

  describe.each(['social_a', 'social_b'] as const)('%s (Send API: POST {graph}/{page-id}/messages)', (kind) => {
    const send = (type: string, body: Record<string, unknown>) =>
      sendOk(kind, `/sendInteractive/${kind}/${type}`, { ticketId: ticket[kind].id, ...body });
    const envelope = () => ({ recipient: { id: ticket[kind].to }, messaging_type: 'RESPONSE' });

    it('quickReply → text with quick_replies', async () => {
      const { req } = await send('quickReply', {
        message: 'Pick one',
        quickReplies: [{ content_type: 'text', title: 'Red', payload: 'RED' }, { content_type: 'user_phone_number' }],
      });
      expect(req.url).toBe(`/graph/${PAGE_ID}/messages`);
      expect(req.headers.authorization).toBe('Bearer page-token');
      expect(req.body).toEqual({
        ...envelope(),
        message: {
          text: 'Pick one',
          quick_replies: [{ content_type: 'text', title: 'Red', payload: 'RED' }, { content_type: 'user_phone_number' }],
        },
      });
    });

    it('buttonTemplate → a button template', async () => {
      const buttons = [
        { type: 'postback', title: 'Start', payload: 'START' },
        { type: 'web_url', title: 'Site', url: 'https://shop.example' },
      ];
      const { req } = await send('buttonTemplate', { message: 'Welcome', buttons });
      expect(req.body).toEqual({
        ...envelope(),
        message: { attachment: { type: 'template', payload: { template_type: 'button', text: 'Welcome', buttons } } },
      });
    });

    it('genericTemplate → a generic template of cards', async () => {
      const elements = [
        {
          title: 'Shirt',
          subtitle: 'Cotton',
          image_url: 'https://cdn.example/shirt.jpg',
          buttons: [{ type: 'postback', title: 'Buy', payload: 'BUY_SHIRT' }],
        },
        { title: 'Cap', subtitle: 'Wool' },
      ];
      const { req } = await send('genericTemplate', { elements });
      expect(req.body).toEqual({
        ...envelope(),
        message: { attachment: { type: 'template', payload: { template_type: 'generic', elements } } },
      });
    });
  });

  describe('social_b only (Messenger templates and tags)', () => {
    const send = (type: string, body: Record<string, unknown>, requests = 1) =>
      sendOk('social_b', `/sendInteractive/social_b/${type}`, { ticketId: ticket.social_b.id, ...body }, requests);
    const envelope = () => ({ recipient: { id: ticket.social_b.to } });

    it('mediaTemplate → the media uploaded first, then a media template naming its attachment_id', async () => {
      const buttons = [{ type: 'web_url', title: 'Shop', url: 'https://shop.example' }];
      const { req } = await send('mediaTemplate', { mediaType: 'image', mediaUrl: 'https://cdn.example/promo.jpg', buttons }, 2);
      const [upload] = sent();
      expect(upload.url).toBe(`/graph/${PAGE_ID}/message_attachments`);
      expect(upload.body).toEqual({
        message: { attachment: { type: 'image', payload: { url: 'https://cdn.example/promo.jpg', is_reusable: true } } },
      });
      const attachmentId = `ATT-${providers.requests.indexOf(upload) + 1}`;
      expect(req.body).toEqual({
        ...envelope(),
        messaging_type: 'RESPONSE',
        message: {
          attachment: {
            type: 'template',
            payload: { template_type: 'media', elements: [{ media_type: 'image', attachment_id: attachmentId, buttons }] },
          },
        },
      });
    });

    it('receiptTemplate → a receipt template', async () => {
      const receipt = {
        recipient_name: 'Ana Souza',
        order_number: 'ORD-42',
        currency: 'BRL',
        payment_method: 'PIX',
        summary: { total_cost: 59.8 },
        elements: [{ title: 'Shirt', price: 29.9, quantity: 2 }],
      };
      const { req } = await send('receiptTemplate', { receipt });
      expect(req.body).toEqual({
        ...envelope(),
        messaging_type: 'RESPONSE',
        message: { attachment: { type: 'template', payload: { template_type: 'receipt', ...receipt } } },
      });
    });

    it('messageTag → MESSAGE_TAG with the tag', async () => {
      const { req } = await send('messageTag', { message: 'Your order shipped', tag: 'POST_PURCHASE_UPDATE' });
      expect(req.body).toEqual({
        ...envelope(),
        messaging_type: 'MESSAGE_TAG',
        tag: 'POST_PURCHASE_UPDATE',
        message: { text: 'Your order shipped' },
      });
    });

    it('customerFeedback → a customer_feedback template under the CUSTOMER_FEEDBACK tag', async () => {
      const { req } = await send('customerFeedback', {
        title: 'Rate your experience',
        subtitle: 'It takes a minute',
        business_privacy_url: 'https://shop.example/privacy',
        expires_in_days: 3,
        feedback_screens: [{ questions: [{ id: 'q1', type: 'csat', title: 'How did we do?', score_option: 'five_stars' }] }],
      });
      expect(req.body).toEqual({
        ...envelope(),
        messaging_type: 'MESSAGE_TAG',
        tag: 'CUSTOMER_FEEDBACK',
        message: {
          attachment: {
            type: 'template',
            payload: {
              template_type: 'customer_feedback',
              title: 'Rate your experience',
              subtitle: 'It takes a minute',
              button_title: 'Rate us',
              feedback_screens: [{ questions: [{ id: 'q1', type: 'csat', title: 'How did we do?', score_option: 'five_stars' }] }],
              business_privacy: { url: 'https://shop.example/privacy' },
              expires_in_days: 3,
            },
          },
        },
      });
    });

    it('has no social_a counterpart', async () => {
      await sendFails('social_a', '/sendInteractive/social_a/mediaTemplate', { ticketId: ticket.social_a.id }, 404, 'ERR_ROUTE_NOT_FOUND');
    });
  });

  // ---- the engines' real names (the product's API page) beside the seed's segments ---------------

  describe('real segment names: one route table, two names', () => {
    const quickReply = { body: { text: 'Hi' }, buttons: [{ display_text: 'Yes', id: 'yes' }] };
    const cases = [
      ['engine_a', 'baileys', 'quickReply', quickReply],
      ['engine_b', 'zapo', 'quickReply', quickReply],
      ['engine_c', 'uazapi', 'button', { text: 'Choose', choices: ['Yes|yes'] }],
      ['social_a', 'instagram', 'quickReply', { message: 'Pick', quickReplies: [{ content_type: 'text', title: 'Red', payload: 'RED' }] }],
      ['social_b', 'messenger', 'quickReply', { message: 'Pick', quickReplies: [{ content_type: 'text', title: 'Red', payload: 'RED' }] }],
    ] as const;

    it.each(cases)('%s as %s: the same provider request as the seed name', async (kind, real, type, body) => {
      const seed = await sendOk(kind, `/sendInteractive/${kind}/${type}`, { ticketId: ticket[kind].id, ...body });
      const alias = await sendOk(kind, `/sendInteractive/${real}/${type}`, { ticketId: ticket[kind].id, ...body });
      const strip = (r: Recorded) =>
        JSON.parse(
          JSON.stringify({ url: r.url, body: r.body })
            .replaceAll(seed.res.body.data.messageId, 'ID')
            .replaceAll(alias.res.body.data.messageId, 'ID'),
        );
      expect(strip(alias.req)).toEqual(strip(seed.req));
      expect(alias.res.body.data.ticketId).toBe(seed.res.body.data.ticketId);
    });

    it('validates and checks the kind under the real name as under the seed name', async () => {
      await sendFails(
        'engine_a',
        '/sendInteractive/baileys/quickReply',
        { ticketId: ticket.engine_a.id, buttons: [] },
        400,
        'ERR_VALIDATION',
        ['body', 'buttons'],
      );
      const res = await sendFails(
        'engine_a',
        '/sendInteractive/zapo/quickReply',
        { ticketId: ticket.engine_a.id, ...quickReply },
        400,
        'ERR_CHANNEL_MISMATCH',
      );
      expect(res.body.message).toMatch(/engine_b/);
      await sendFails('social_a', '/sendInteractive/instagram/mediaTemplate', { ticketId: ticket.social_a.id }, 404, 'ERR_ROUTE_NOT_FOUND');
    });

    it('lists the real names in the OpenAPI document as aliases of the seed paths', async () => {
      const doc = (await call(`${mesh.gatewayUrl}/docs/json`, { method: 'GET' })).body;
      const alias = doc.paths['/v2/api/external/{apiId}/sendInteractive/uazapi/button'].post;
      expect(alias['x-alias-of']).toBe('/v2/api/external/{apiId}/sendInteractive/engine_c/button');
      expect(doc.paths['/v2/api/external/{apiId}/sendInteractive/engine_c/button'].post['x-alias-of']).toBeUndefined();
      expect(doc.paths['/v2/api/external/{apiId}/messenger/greeting'].post['x-alias-of']).toBe(
        '/v2/api/external/{apiId}/social_b/greeting',
      );
    });
  });

  // ---- the rules that hold for every route ------------------------------------------------------

  describe('ticket and channel rules', () => {
    const quickReply = { body: { text: 'Hi' }, buttons: [{ display_text: 'Yes', id: 'yes' }] };

    it("refuses a route whose engine is not the ticket channel's kind, naming both, and sends nothing", async () => {
      const res = await sendFails(
        'engine_a',
        '/sendInteractive/engine_b/quickReply',
        { ticketId: ticket.engine_a.id, ...quickReply },
        400,
        'ERR_CHANNEL_MISMATCH',
        ['ticketId'],
      );
      expect(res.body.message).toMatch(/engine_b/);
      expect(res.body.message).toMatch(/engine_a/);
      await sendFails(
        'social_a',
        '/sendInteractive/social_b/messageTag',
        { ticketId: ticket.social_a.id, message: 'x', tag: 'ACCOUNT_UPDATE' },
        400,
        'ERR_CHANNEL_MISMATCH',
      );
    });

    it('refuses a waba route on an integration whose channel is not waba, opening no ticket', async () => {
      const number = newNumber();
      const res = await sendFails(
        'engine_a',
        '/sendButtonWABA',
        { number, message: 'Hi', button1: 'A', button2: 'B' },
        400,
        'ERR_CHANNEL_MISMATCH',
      );
      expect(res.body.message).toMatch(/waba.*engine_a/);
      expect((await post('engine_a', '/showallticket', { number })).body.data.count).toBe(0);
    });

    it('refuses a closed ticket with 409 ERR_TICKET_CLOSED and sends nothing', async () => {
      const created = await openTicket('engine_a', newNumber());
      await post('engine_a', '/updateticketinfo', { ticketId: created.body.data.ticketId, status: 'closed' });
      await sendFails(
        'engine_a',
        '/sendInteractive/engine_a/quickReply',
        { ticketId: created.body.data.ticketId, ...quickReply },
        409,
        'ERR_TICKET_CLOSED',
      );
    });

    it("answers 404 for an unknown ticket or another tenant's", async () => {
      await sendFails(
        'engine_a',
        '/sendInteractive/engine_a/quickReply',
        { ticketId: 987_654_321, ...quickReply },
        404,
        'ERR_TICKET_NOT_FOUND',
      );
    });

    it('keeps the message in the ticket history as readable text', async () => {
      const { res } = await sendOk('engine_a', '/sendInteractive/engine_a/quickReply', {
        ticketId: ticket.engine_a.id,
        body: { text: 'Did it arrive?' },
        buttons: [
          { display_text: 'Yes', id: 'y' },
          { display_text: 'No', id: 'n' },
        ],
      });
      const got = await settled(api.engine_a.root, api.engine_a.token, res.body.data.messageId);
      expect(got).toMatchObject({ body: 'Did it arrive?\n[Yes] [No]', status: 'sent', direction: 'out' });
    });
  });

  // ---- validation: one refusal per rule (400, the field named, nothing sent) --------------------

  describe('validation', () => {
    const ea = (over: Record<string, unknown>) => ({ ticketId: ticket.engine_a.id, ...over });
    const quick = (over: Record<string, unknown> = {}) =>
      ea({ body: { text: 'Hi' }, buttons: [{ display_text: 'Yes', id: 'yes' }], ...over });
    const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ display_text: `B${i}`, id: `b${i}` }));
    const rows = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, title: `Row ${i}` }));
    const select = (sections: unknown) => ea({ body: { text: 'Pick' }, list: { title: 'Open', sections } });
    const pix = (pixType: string, pixKey: string) => ea({ pixType, pixKey, pixName: 'Acme' });
    const eb = (over: Record<string, unknown>) => ({ ticketId: ticket.engine_b.id, ...over });
    const ec = (over: Record<string, unknown>) => ({ ticketId: ticket.engine_c.id, ...over });
    const card = (over: Record<string, unknown> = {}) => ({
      text: 'Card',
      image: 'https://cdn.example/c.jpg',
      buttons: [{ text: 'Buy', type: 'REPLY' }],
      ...over,
    });
    const payment = (over: Record<string, unknown>) =>
      ec({ amount: 10, title: 'Order', pixType: 'CPF', pixKey: CPF, pixName: 'Acme', ...over });
    const wabaButtons = (over: Record<string, unknown>) => ({ number: ticket.waba.to, message: 'Hi', button1: 'A', button2: 'B', ...over });
    const wabaList = (over: Record<string, unknown>) => ({
      number: ticket.waba.to,
      body: 'Pick',
      button_text: 'Open',
      sections: [{ title: 'S', rows: rows(2) }],
      ...over,
    });
    const sb = (over: Record<string, unknown>) => ({ ticketId: ticket.social_b.id, ...over });
    const postback = (over: Record<string, unknown> = {}) => ({ type: 'postback', title: 'Go', payload: 'GO', ...over });
    const receipt = (over: Record<string, unknown> = {}) => ({
      recipient_name: 'Ana',
      order_number: 'O-1',
      currency: 'BRL',
      payment_method: 'PIX',
      summary: { total_cost: 10 },
      elements: [{ title: 'Shirt', price: 10, quantity: 1 }],
      ...over,
    });
    const question = (over: Record<string, unknown> = {}) => ({ id: 'q1', type: 'csat', title: 'How did we do?', ...over });
    const feedback = (over: Record<string, unknown>) =>
      sb({
        title: 'Rate us',
        business_privacy_url: 'https://shop.example/privacy',
        feedback_screens: [{ questions: [question()] }],
        ...over,
      });

    const A = '/sendInteractive/engine_a';
    const B = '/sendInteractive/engine_b';
    const C = '/sendInteractive/engine_c';
    const SB = '/sendInteractive/social_b';

    it.each<[string, Kind, string, () => unknown, string]>([
      // every ticket route
      ['ticketId is required', 'engine_a', `${A}/quickReply`, () => ({ body: { text: 'Hi' }, buttons: buttons(1) }), 'ticketId'],
      // engine_a / engine_b shared types
      ['body.text is required', 'engine_a', `${A}/quickReply`, () => quick({ body: {} }), 'body.text'],
      ['quickReply takes at most 3 buttons', 'engine_a', `${A}/quickReply`, () => quick({ buttons: buttons(4) }), 'buttons'],
      ['a button needs an id', 'engine_a', `${A}/quickReply`, () => quick({ buttons: [{ display_text: 'Yes' }] }), 'buttons[0].id'],
      [
        'button labels are at most 20 characters',
        'engine_a',
        `${A}/quickReply`,
        () => quick({ buttons: [{ display_text: 'x'.repeat(21), id: 'a' }] }),
        'buttons[0].display_text',
      ],
      [
        'button ids are unique',
        'engine_a',
        `${A}/quickReply`,
        () =>
          quick({
            buttons: [
              { display_text: 'A', id: 'same' },
              { display_text: 'B', id: 'same' },
            ],
          }),
        'buttons[1].id',
      ],
      [
        'button labels are unique',
        'engine_a',
        `${A}/quickReply`,
        () =>
          quick({
            buttons: [
              { display_text: 'Yes', id: 'a' },
              { display_text: 'yes', id: 'b' },
            ],
          }),
        'buttons[1].display_text',
      ],
      [
        'the footer is at most 60 characters',
        'engine_b',
        `${B}/quickReply`,
        () => eb({ body: { text: 'Hi' }, footer: { text: 'x'.repeat(61) }, buttons: buttons(1) }),
        'footer.text',
      ],
      [
        'a button body is at most 1024 characters',
        'engine_a',
        `${A}/ctaCopy`,
        () => ea({ body: { text: 'x'.repeat(1025) }, displayText: 'Copy', copyCode: 'C' }),
        'body.text',
      ],
      [
        'list.title is required',
        'engine_a',
        `${A}/singleSelect`,
        () => ea({ body: { text: 'Pick' }, list: { sections: [{ title: 'S', rows: rows(1) }] } }),
        'list.title',
      ],
      [
        'a list has at most 10 rows in all sections',
        'engine_a',
        `${A}/singleSelect`,
        () =>
          select([
            { title: 'S1', rows: rows(6, 'a') },
            { title: 'S2', rows: rows(5, 'b') },
          ]),
        'list.sections',
      ],
      ['a section needs rows', 'engine_a', `${A}/singleSelect`, () => select([{ title: 'S1', rows: [] }]), 'list.sections[0].rows'],
      [
        'row titles are at most 24 characters',
        'engine_b',
        `${B}/singleSelect`,
        () =>
          eb({ body: { text: 'Pick' }, list: { title: 'Open', sections: [{ title: 'S', rows: [{ id: 'a', title: 'x'.repeat(25) }] }] } }),
        'list.sections[0].rows[0].title',
      ],
      [
        'row descriptions are at most 72 characters',
        'engine_a',
        `${A}/singleSelect`,
        () => select([{ title: 'S', rows: [{ id: 'a', title: 'A', description: 'x'.repeat(73) }] }]),
        'list.sections[0].rows[0].description',
      ],
      [
        'row ids are unique across sections',
        'engine_a',
        `${A}/singleSelect`,
        () =>
          select([
            { title: 'S1', rows: [{ id: 'dup', title: 'A' }] },
            { title: 'S2', rows: [{ id: 'dup', title: 'B' }] },
          ]),
        'list.sections[1].rows[0].id',
      ],
      ['pixType is one of EVP, CPF, CNPJ, EMAIL, PHONE', 'engine_a', `${A}/pixButton`, () => pix('IBAN', 'x'), 'pixType'],
      ['pixName is required', 'engine_a', `${A}/pixButton`, () => ea({ pixType: 'CPF', pixKey: CPF }), 'pixName'],
      ['a CPF key has valid check digits', 'engine_a', `${A}/pixButton`, () => pix('CPF', '529.982.247-24'), 'pixKey'],
      [
        'a CPF key is not one repeated digit',
        'engine_b',
        `${B}/pixButton`,
        () => eb({ pixType: 'CPF', pixKey: '111.111.111-11', pixName: 'Acme' }),
        'pixKey',
      ],
      ['a CNPJ key has valid check digits', 'engine_a', `${A}/pixButton`, () => pix('CNPJ', '11.222.333/0001-82'), 'pixKey'],
      ['an EMAIL key is an address', 'engine_a', `${A}/pixButton`, () => pix('EMAIL', 'pix.example.com'), 'pixKey'],
      [
        'an EMAIL key is at most 77 characters',
        'engine_a',
        `${A}/pixButton`,
        () => pix('EMAIL', `${'a'.repeat(70)}@example.com`),
        'pixKey',
      ],
      ['a PHONE key is +55 E.164', 'engine_a', `${A}/pixButton`, () => pix('PHONE', '11987654321'), 'pixKey'],
      ['an EVP key is a UUID', 'engine_a', `${A}/pixButton`, () => pix('EVP', 'not-a-uuid'), 'pixKey'],
      [
        'ctaUrl takes an http(s) URL',
        'engine_a',
        `${A}/ctaUrl`,
        () => ea({ body: { text: 'Go' }, displayText: 'Go', url: 'ftp://shop.example' }),
        'url',
      ],
      [
        'ctaCall phoneNumber starts with +',
        'engine_a',
        `${A}/ctaCall`,
        () => ea({ body: { text: 'Call' }, displayText: 'Call', phoneNumber: '5511987654321' }),
        'phoneNumber',
      ],
      ['displayText is required', 'engine_b', `${B}/ctaCopy`, () => eb({ body: { text: 'Coupon' }, copyCode: 'C' }), 'displayText'],
      // engine_b poll
      ['a poll has at least 2 options', 'engine_b', `${B}/poll`, () => eb({ name: 'Q', options: ['Only'] }), 'options'],
      [
        'a poll has at most 10 options',
        'engine_b',
        `${B}/poll`,
        () => eb({ name: 'Q', options: Array.from({ length: 11 }, (_, i) => `O${i}`) }),
        'options',
      ],
      ['poll options are unique', 'engine_b', `${B}/poll`, () => eb({ name: 'Q', options: ['Yes', 'yes'] }), 'options[1]'],
      [
        'selectableCount is at most the number of options',
        'engine_b',
        `${B}/poll`,
        () => eb({ name: 'Q', options: ['A', 'B'], selectableCount: 3 }),
        'selectableCount',
      ],
      // engine_c
      [
        'button takes at most 3 choices',
        'engine_c',
        `${C}/button`,
        () => ec({ text: 'Pick', choices: ['A|a', 'B|b', 'C|c', 'D|d'] }),
        'choices',
      ],
      [
        'a button label is at most 20 characters',
        'engine_c',
        `${C}/button`,
        () => ec({ text: 'Pick', choices: [`${'x'.repeat(21)}|id`] }),
        'choices[0]',
      ],
      [
        'imageButton is an http(s) URL',
        'engine_c',
        `${C}/button`,
        () => ec({ text: 'Pick', choices: ['A|a'], imageButton: 'not a url' }),
        'imageButton',
      ],
      ['listButton is required', 'engine_c', `${C}/list`, () => ec({ text: 'Menu', choices: ['A|a'] }), 'listButton'],
      [
        'a list has at most 10 rows',
        'engine_c',
        `${C}/list`,
        () => ec({ text: 'Menu', listButton: 'Open', choices: Array.from({ length: 11 }, (_, i) => `R${i}|r${i}`) }),
        'choices',
      ],
      [
        'a list has a row',
        'engine_c',
        `${C}/list`,
        () => ec({ text: 'Menu', listButton: 'Open', choices: ['[Only a section]'] }),
        'choices',
      ],
      [
        'a list row title is at most 24 characters',
        'engine_c',
        `${C}/list`,
        () => ec({ text: 'Menu', listButton: 'Open', choices: [`${'x'.repeat(25)}|id`] }),
        'choices[0]',
      ],
      ['an engine_c poll has at least 2 choices', 'engine_c', `${C}/poll`, () => ec({ text: 'Q', choices: ['A'] }), 'choices'],
      ['a carousel needs its text (uazapi requires it)', 'engine_c', `${C}/carousel`, () => ec({ carousel: [card()] }), 'text'],
      [
        'a carousel button type is REPLY or URL',
        'engine_c',
        `${C}/carousel`,
        () => ec({ carousel: [card({ buttons: [{ text: 'Call', type: 'CALL' }] })] }),
        'carousel[0].buttons[0].type',
      ],
      [
        'a URL carousel button needs url',
        'engine_c',
        `${C}/carousel`,
        () => ec({ carousel: [card({ buttons: [{ text: 'See', type: 'URL' }] })] }),
        'carousel[0].buttons[0].url',
      ],
      [
        'a carousel card needs its image',
        'engine_c',
        `${C}/carousel`,
        () => ec({ carousel: [{ text: 'Card', buttons: [{ text: 'Buy', type: 'REPLY' }] }] }),
        'carousel[0].image',
      ],
      [
        'a carousel has at most 10 cards',
        'engine_c',
        `${C}/carousel`,
        () => ec({ carousel: Array.from({ length: 11 }, () => card()) }),
        'carousel',
      ],
      [
        'engine_c pixButton checks the key',
        'engine_c',
        `${C}/pixButton`,
        () => ec({ pixType: 'EMAIL', pixKey: 'nope', pixName: 'Acme' }),
        'pixKey',
      ],
      ['locationButton needs text', 'engine_c', `${C}/locationButton`, () => ec({}), 'text'],
      ['a payment amount is positive', 'engine_c', `${C}/requestPayment`, () => payment({ amount: 0 }), 'amount'],
      ['a payment amount has at most two decimals', 'engine_c', `${C}/requestPayment`, () => payment({ amount: 10.005 }), 'amount'],
      ['a payment needs a title', 'engine_c', `${C}/requestPayment`, () => payment({ title: undefined }), 'title'],
      ['a payment checks its PIX key', 'engine_c', `${C}/requestPayment`, () => payment({ pixKey: '123.456.789-00' }), 'pixKey'],
      // waba
      ['sendButtonWABA needs number', 'waba', '/sendButtonWABA', () => ({ message: 'Hi', button1: 'A', button2: 'B' }), 'number'],
      ['sendButtonWABA needs button2', 'waba', '/sendButtonWABA', () => wabaButtons({ button2: undefined }), 'button2'],
      [
        'waba button titles are at most 20 characters',
        'waba',
        '/sendButtonWABA',
        () => wabaButtons({ button3: 'x'.repeat(21) }),
        'button3',
      ],
      ['waba button titles are unique', 'waba', '/sendButtonWABA', () => wabaButtons({ button2: 'a' }), 'button2'],
      [
        'the waba button message is at most 1024 characters',
        'waba',
        '/sendButtonWABA',
        () => wabaButtons({ message: 'x'.repeat(1025) }),
        'message',
      ],
      ['sendListWABA needs button_text', 'waba', '/sendListWABA', () => wabaList({ button_text: undefined }), 'button_text'],
      ['button_text is at most 20 characters', 'waba', '/sendListWABA', () => wabaList({ button_text: 'x'.repeat(21) }), 'button_text'],
      [
        'a waba list has at most 10 rows in all',
        'waba',
        '/sendListWABA',
        () =>
          wabaList({
            sections: [
              { title: 'A', rows: rows(5, 'a') },
              { title: 'B', rows: rows(6, 'b') },
            ],
          }),
        'sections',
      ],
      [
        'a waba row needs its id',
        'waba',
        '/sendListWABA',
        () => wabaList({ sections: [{ title: 'A', rows: [{ title: 'One' }] }] }),
        'sections[0].rows[0].id',
      ],
      ['the waba list header is at most 60 characters', 'waba', '/sendListWABA', () => wabaList({ header: 'x'.repeat(61) }), 'header'],
      ['the waba list body is at most 4096 characters', 'waba', '/sendListWABA', () => wabaList({ body: 'x'.repeat(4097) }), 'body'],
      // social
      [
        'content_type is text or user_phone_number',
        'social_b',
        `${SB}/quickReply`,
        () => sb({ message: 'Hi', quickReplies: [{ content_type: 'user_email' }] }),
        'quickReplies[0].content_type',
      ],
      [
        'a text quick reply needs title',
        'social_b',
        `${SB}/quickReply`,
        () => sb({ message: 'Hi', quickReplies: [{ content_type: 'text', payload: 'P' }] }),
        'quickReplies[0].title',
      ],
      [
        'a text quick reply needs payload',
        'social_a',
        '/sendInteractive/social_a/quickReply',
        () => ({ ticketId: ticket.social_a.id, message: 'Hi', quickReplies: [{ content_type: 'text', title: 'T' }] }),
        'quickReplies[0].payload',
      ],
      [
        'a phone quick reply takes no title',
        'social_b',
        `${SB}/quickReply`,
        () => sb({ message: 'Hi', quickReplies: [{ content_type: 'user_phone_number', title: 'Phone' }] }),
        'quickReplies[0].title',
      ],
      [
        'at most 13 quick replies',
        'social_b',
        `${SB}/quickReply`,
        () =>
          sb({
            message: 'Hi',
            quickReplies: Array.from({ length: 14 }, (_, i) => ({ content_type: 'text', title: `T${i}`, payload: `P${i}` })),
          }),
        'quickReplies',
      ],
      [
        'a quick reply title is at most 20 characters',
        'social_b',
        `${SB}/quickReply`,
        () => sb({ message: 'Hi', quickReplies: [{ content_type: 'text', title: 'x'.repeat(21), payload: 'P' }] }),
        'quickReplies[0].title',
      ],
      [
        'buttonTemplate takes at most 3 buttons',
        'social_b',
        `${SB}/buttonTemplate`,
        () => sb({ message: 'Hi', buttons: [postback(), postback(), postback(), postback()] }),
        'buttons',
      ],
      [
        'a postback button needs payload',
        'social_b',
        `${SB}/buttonTemplate`,
        () => sb({ message: 'Hi', buttons: [postback({ payload: undefined })] }),
        'buttons[0].payload',
      ],
      [
        'a web_url button needs url',
        'social_b',
        `${SB}/buttonTemplate`,
        () => sb({ message: 'Hi', buttons: [{ type: 'web_url', title: 'Site' }] }),
        'buttons[0].url',
      ],
      [
        'a button type is postback or web_url',
        'social_b',
        `${SB}/buttonTemplate`,
        () => sb({ message: 'Hi', buttons: [postback({ type: 'phone_number' })] }),
        'buttons[0].type',
      ],
      [
        'a template button title is at most 20 characters',
        'social_b',
        `${SB}/buttonTemplate`,
        () => sb({ message: 'Hi', buttons: [postback({ title: 'x'.repeat(21) })] }),
        'buttons[0].title',
      ],
      [
        'genericTemplate takes at most 10 elements',
        'social_b',
        `${SB}/genericTemplate`,
        () => sb({ elements: Array.from({ length: 11 }, () => ({ title: 'Card', subtitle: 'S' })) }),
        'elements',
      ],
      [
        'an element title is at most 80 characters',
        'social_b',
        `${SB}/genericTemplate`,
        () => sb({ elements: [{ title: 'x'.repeat(81), subtitle: 'S' }] }),
        'elements[0].title',
      ],
      ['an element has more than a title', 'social_b', `${SB}/genericTemplate`, () => sb({ elements: [{ title: 'Card' }] }), 'elements[0]'],
      [
        'an element button follows the button rules',
        'social_b',
        `${SB}/genericTemplate`,
        () => sb({ elements: [{ title: 'Card', buttons: [{ type: 'web_url', title: 'Go' }] }] }),
        'elements[0].buttons[0].url',
      ],
      [
        'mediaType is image or video',
        'social_b',
        `${SB}/mediaTemplate`,
        () => sb({ mediaType: 'audio', mediaUrl: 'https://cdn.example/a.mp3' }),
        'mediaType',
      ],
      [
        'mediaUrl is an http(s) URL',
        'social_b',
        `${SB}/mediaTemplate`,
        () => sb({ mediaType: 'image', mediaUrl: 'promo.jpg' }),
        'mediaUrl',
      ],
      [
        'a receipt needs summary.total_cost',
        'social_b',
        `${SB}/receiptTemplate`,
        () => sb({ receipt: receipt({ summary: {} }) }),
        'receipt.summary.total_cost',
      ],
      [
        'a receipt quantity is an integer',
        'social_b',
        `${SB}/receiptTemplate`,
        () => sb({ receipt: receipt({ elements: [{ title: 'Shirt', price: 10, quantity: 1.5 }] }) }),
        'receipt.elements[0].quantity',
      ],
      [
        'a receipt currency is ISO 4217',
        'social_b',
        `${SB}/receiptTemplate`,
        () => sb({ receipt: receipt({ currency: 'real' }) }),
        'receipt.currency',
      ],
      [
        'a receipt needs payment_method',
        'social_b',
        `${SB}/receiptTemplate`,
        () => sb({ receipt: receipt({ payment_method: undefined }) }),
        'receipt.payment_method',
      ],
      ["the tag is one of Meta's current tags", 'social_b', `${SB}/messageTag`, () => sb({ message: 'Hi', tag: 'SHIPPING_UPDATE' }), 'tag'],
      [
        'customerFeedback needs business_privacy_url',
        'social_b',
        `${SB}/customerFeedback`,
        () => feedback({ business_privacy_url: undefined }),
        'business_privacy_url',
      ],
      [
        'a question type is csat, nps, ces or free_form',
        'social_b',
        `${SB}/customerFeedback`,
        () => feedback({ feedback_screens: [{ questions: [question({ type: 'stars' })] }] }),
        'feedback_screens[0].questions[0].type',
      ],
      [
        'a question needs its id',
        'social_b',
        `${SB}/customerFeedback`,
        () => feedback({ feedback_screens: [{ questions: [question({ id: undefined })] }] }),
        'feedback_screens[0].questions[0].id',
      ],
      [
        'exactly one feedback screen',
        'social_b',
        `${SB}/customerFeedback`,
        () => feedback({ feedback_screens: [{ questions: [question()] }, { questions: [question()] }] }),
        'feedback_screens',
      ],
      [
        'score_option matches the question type',
        'social_b',
        `${SB}/customerFeedback`,
        () => feedback({ feedback_screens: [{ questions: [question({ type: 'nps', score_option: 'five_stars' })] }] }),
        'feedback_screens[0].questions[0].score_option',
      ],
      ['expires_in_days is 1 to 7', 'social_b', `${SB}/customerFeedback`, () => feedback({ expires_in_days: 8 }), 'expires_in_days'],
      ['the survey title has no URL', 'social_b', `${SB}/customerFeedback`, () => feedback({ title: 'See https://x.example' }), 'title'],
    ])('%s', async (_rule, kind, path, body, field) => {
      const res = await sendFails(kind, path, body(), 400, 'ERR_VALIDATION', [field]);
      expect(res.body.details).toEqual(expect.arrayContaining([{ field, message: expect.any(String) }]));
    });

    it('names every error of a request at once, schema and cross-field rules together', async () => {
      const res = await sendFails(
        'engine_a',
        `${A}/quickReply`,
        ea({
          body: {},
          buttons: [
            { display_text: 'x'.repeat(21), id: 'same' },
            { display_text: 'B', id: 'same' },
          ],
        }),
        400,
        'ERR_VALIDATION',
      );
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'body.text',
        'buttons[0].display_text',
        'buttons[1].id',
      ]);
    });

    it('drops fields the route does not define instead of passing them to the provider', async () => {
      const { req } = await sendOk('engine_c', `${C}/locationButton`, ec({ text: 'Where?', extra: 'ignored', number: '5599999999999' }));
      expect(req.body).toEqual({ number: ticket.engine_c.to, text: 'Where?' });
    });
  });
});
