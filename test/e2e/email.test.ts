import type { Mesh } from '@convo/dev-mesh';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { call, settled, UNPACED } from '../support/http';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

interface Mail {
  mailFrom: string;
  rcptTo: string[];
  raw: string;
}

/** An SMTP relay on loopback that records the envelope and DATA of every message, and can refuse a recipient. */
async function startRelay() {
  const mails: Mail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    closeTimeout: 100,
    onRcptTo(address, _session, callback) {
      if (!refuse.has(address.address)) return callback();
      callback(Object.assign(new Error('5.1.1 Mailbox unavailable'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    const net = server.listen(0, '127.0.0.1', () => resolve((net.address() as AddressInfo).port));
  });
  return { url: `smtp://127.0.0.1:${port}`, mails, refuse, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A header of a raw message, unfolded. */
const header = (raw: string, name: string) =>
  new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, 'im').exec(raw)?.[1].replace(/\r\n[ \t]+/g, ' ');

/** The e-mail variant of createTicket and sends to e-mail tickets, through the whole mesh to an SMTP relay. */
describe('e-mail (webmail channels)', () => {
  let mesh: Mesh;
  let relay: Awaited<ReturnType<typeof startRelay>>;
  let root: string;
  let token: string;
  let webmailId: number;
  let ticketId: number;
  const crashes: string[] = [];

  beforeAll(async () => {
    relay = await startRelay();
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Mail Co',
        maxUsers: 2,
        maxConnections: 3,
        acceptTerms: true,
        email: 'admin@mail.example',
        password: 'M4il!pass',
        userName: 'M',
        profile: 'admin',
      },
    });
    expect(tenant.status).toBe(200);
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: {
        tenant: tenant.body.data.tenant.id,
        name: 'Support mailbox',
        type: 'webmail',
        engineUrl: relay.url,
        engineToken: 'mail-bridge-token',
        emailAddress: 'support@mail.example',
      },
    });
    expect(session.status).toBe(200);
    webmailId = session.body.data.whatsapp.id;
    token = session.body.data.api.authToken;
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
  });

  afterAll(async () => {
    await mesh?.stop();
    await relay?.close();
  });

  beforeEach(() => {
    relay.mails.length = 0;
  });
  afterEach(() => expect(crashes).toEqual([]));

  it('createTicket with email and channelId opens the ticket and e-mails the first message', async () => {
    const res = await call(`${root}/createTicket`, {
      token,
      body: { email: 'Ana@Example.com', channelId: webmailId, body: 'Hello Ana, we got your request.' },
    });

    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: true, ticket: { whatsappId: webmailId, contact: { email: 'ana@example.com' } } });
    ticketId = res.body.data.ticketId;
    await settled(root, token, res.body.data.messageId);
    expect(relay.mails).toHaveLength(1);
    const [mail] = relay.mails;
    expect(mail.mailFrom).toBe('support@mail.example');
    expect(mail.rcptTo).toEqual(['ana@example.com']);
    expect(header(mail.raw, 'From')).toBe('support@mail.example');
    expect(header(mail.raw, 'To')).toBe('ana@example.com');
    expect(header(mail.raw, 'Subject')).toBe('Hello Ana, we got your request.');
    expect(mail.raw).toContain('\r\n\r\nHello Ana, we got your request.');

    // The stored message names the e-mail by its Message-ID.
    const { messageId } = res.body.data;
    const stored = { body: { data: await settled(root, token, messageId) } };
    expect(stored.body.data).toMatchObject({ status: 'sent', providerMessageId: header(mail.raw, 'Message-ID') });
  });

  it('sendMessageByTicket to the e-mail ticket sends an e-mail, with a file as attachment', async () => {
    const pdf = Buffer.from('%PDF-1.4\n% the invoice\n%%EOF\n');
    const res = await call(`${root}/sendMessageByTicket`, {
      token,
      body: {
        ticketId,
        body: 'Your invoice is attached.',
        base64Data: pdf.toString('base64'),
        mimeType: 'application/pdf',
        fileName: 'invoice',
      },
    });

    expect(res.status).toBe(200);
    await settled(root, token, res.body.data.messageId);
    expect(relay.mails).toHaveLength(1);
    const [mail] = relay.mails;
    expect(mail.rcptTo).toEqual(['ana@example.com']);
    expect(header(mail.raw, 'Content-Type')).toMatch(/^multipart\/mixed/);
    expect(mail.raw).toContain('Your invoice is attached.');
    expect(mail.raw).toMatch(/Content-Disposition: attachment; filename=invoice\.pdf/);
    // The attachment's base64, unwrapped, is the file.
    expect(mail.raw.replace(/\r\n/g, '')).toContain(pdf.toString('base64'));
  });

  it("answers in the contact's thread: Re: the subject of their latest e-mail", async () => {
    const inbound = await fetch(`${mesh.gatewayUrl}/webhooks/engine/${webmailId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer mail-bridge-token' },
      body: JSON.stringify({
        type: 'email',
        from: 'bruno@example.com',
        fromName: 'Bruno',
        subject: 'Order 42 is late',
        text: 'Where is it?',
        messageId: '<b1@mail.example.com>',
      }),
    });
    expect(inbound.status).toBe(200);
    const [{ ticketId: brunoTicket }] = ((await inbound.json()) as { data: { results: Array<{ ticketId: number }> } }).data.results;

    const res = await call(`${root}/sendMessageByTicket`, { token, body: { ticketId: brunoTicket, body: 'It ships today.' } });
    expect(res.status).toBe(200);
    await settled(root, token, res.body.data.messageId);
    expect(relay.mails).toHaveLength(1);
    expect(relay.mails[0].rcptTo).toEqual(['bruno@example.com']);
    expect(header(relay.mails[0].raw, 'Subject')).toBe('Re: Order 42 is late');
    const stored = await call(`${root}/getMessageByMessageId?messageId=${res.body.data.messageId}`, { token });
    expect(stored.body.data.subject).toBe('Re: Order 42 is late');
  });

  it("a relay refusal is accepted, then stores the message as failed with the server's reply", async () => {
    relay.refuse.add('bounce@example.com');
    const ticket = await call(`${root}/createTicket`, {
      token,
      body: { email: 'bounce@example.com', channelId: webmailId, body: 'Hello?' },
    });

    expect(ticket.status).toBe(200);
    const failed = await settled(root, token, ticket.body.data.messageId);
    expect(failed).toMatchObject({ status: 'failed', error: expect.stringContaining('550 5.1.1 Mailbox unavailable') });
    expect(relay.mails).toEqual([]);
    const list = await call(`${root}/listTickets?searchParam=bounce`, { token });
    const [opened] = list.body.data.tickets;
    const messages = await call(`${root}/showAllMessages`, { token, body: { ticket: String(opened.id) } });
    expect(messages.body.data.messages).toEqual([
      expect.objectContaining({ body: 'Hello?', status: 'failed', error: expect.stringContaining('550') }),
    ]);
  });

  it('refuses the e-mail variant on a channel that is not webmail', async () => {
    const res = await call(`${root}/createTicket`, { token, body: { email: 'ana@example.com', channelId: 999_999, body: 'x' } });
    expect(res.status).toBe(404);
    expect(relay.mails).toEqual([]);
  });
});
