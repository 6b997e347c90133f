import { listenOnLoopback } from '@convo/test-support';
import { createServer, type ServerResponse } from 'node:http';
import { channelOf, contentOf, failure, settingsWith } from '../support/driver-fixtures';
import { parseMail, startFakeSmtp, startSilentServer, type FakeSmtp } from '../support/fake-smtp';
import type { DriverSettings, Outbound } from '../../src/drivers/driver';
import { DEFAULT_SUBJECT, WebmailDriver } from '../../src/drivers/webmail.driver';

// ---- helpers -------------------------------------------------------------------------------

const TIMEOUT_MS = 400;
const target = (over: Partial<Outbound['channel']> = {}) => channelOf('webmail', { id: 7, emailAddress: 'support@shop.example', ...over });
const content = (over: Partial<Outbound['content']> = {}) => contentOf({ text: 'Hello Ana,\r\nyour order has shipped.', ...over });

/** The files e-mails link to, as the gateway's /media links serve them. */
async function startFileServer() {
  const PDF = Buffer.from('%PDF-1.4\n% a tiny invoice\n%%EOF\n');
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    if (req.url === '/invoice.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    if (req.url === '/hang') return void open.add(res);
    // Declares more than the cap: refused before a byte is read.
    if (req.url === '/huge') {
      open.add(res.writeHead(200, { 'content-length': String(26 * 1024 * 1024) }));
      return res.flushHeaders();
    }
    res.writeHead(404).end('gone');
  });
  return { ...(await listenOnLoopback(server)), PDF };
}

let smtp: FakeSmtp;
let files: Awaited<ReturnType<typeof startFileServer>>;
const drivers: WebmailDriver[] = [];
/** A driver whose pooled connections are closed after the tests. */
const driverWith = (over: Partial<DriverSettings> = {}) => {
  const d = new WebmailDriver(settingsWith(TIMEOUT_MS, over));
  drivers.push(d);
  return d;
};

beforeAll(async () => {
  [smtp, files] = await Promise.all([startFakeSmtp(), startFileServer()]);
});
afterAll(async () => {
  for (const d of drivers) d.close();
  await Promise.all([smtp.close(), files.close()]);
});
beforeEach(() => smtp.reset());

// ---- sending -------------------------------------------------------------------------------

describe('WebmailDriver.send', () => {
  const driver = driverWith();
  const send = (over: Partial<Outbound> = {}) =>
    driver.send({ channel: target({ engineUrl: smtp.url }), to: 'ana@example.com', content: content(), reference: 'msg-1', ...over });

  it("sends the text from the channel's address to the contact through the channel's smtp:// relay", async () => {
    const res = await send();

    expect(res).toEqual({ providerMessageId: '<msg-1@shop.example>' });
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail.mailFrom).toBe('support@shop.example');
    expect(mail.rcptTo).toEqual(['ana@example.com']);
    const { headers, parts } = parseMail(mail.raw);
    expect(headers.from).toBe('support@shop.example');
    expect(headers.to).toBe('ana@example.com');
    expect(headers['message-id']).toBe('<msg-1@shop.example>');
    expect(headers.subject).toBe('Hello Ana,');
    expect(parts).toHaveLength(1);
    expect(parts[0].headers['content-type']).toMatch(/^text\/plain/);
    expect(parts[0].body.toString()).toBe('Hello Ana,\r\nyour order has shipped.');
  });

  it('uses the subject it is given, encoded when it is not ASCII', async () => {
    await send({ content: content({ subject: 'Pedido nº 42 — enviado', text: 'Olá!' }) });
    const { headers, parts } = parseMail(smtp.mails[0].raw);
    expect(headers.subject).toBe('Pedido nº 42 — enviado');
    expect(parts[0].body.toString()).toBe('Olá!');
  });

  it(`cuts a long first line to 78 characters for the subject, and says "${DEFAULT_SUBJECT}" without text`, async () => {
    await send({ content: content({ text: `  ${'x'.repeat(100)}\nsecond line` }) });
    await send({
      content: content({ text: '', mediaUrl: `${files.url}/invoice.pdf`, mimeType: 'application/pdf', fileName: 'invoice.pdf' }),
    });
    const [long, empty] = smtp.mails.map((m) => parseMail(m.raw).headers.subject);
    expect(long).toBe(`${'x'.repeat(77)}…`);
    expect(empty).toBe(DEFAULT_SUBJECT);
  });

  it('attaches the linked file with its name and type', async () => {
    await send({
      content: content({
        text: 'Your invoice',
        mediaUrl: `${files.url}/invoice.pdf`,
        mimeType: 'application/pdf',
        fileName: 'invoice-42.pdf',
      }),
    });

    const { headers, parts } = parseMail(smtp.mails[0].raw);
    expect(headers['content-type']).toMatch(/^multipart\/mixed/);
    expect(parts).toHaveLength(2);
    expect(parts[0].body.toString()).toBe('Your invoice');
    expect(parts[1].headers['content-type']).toMatch(/^application\/pdf/);
    expect(parts[1].headers['content-disposition']).toMatch(/^attachment; filename=invoice-42\.pdf$/);
    expect(parts[1].body).toEqual(files.PDF);
  });

  it.each([
    ['answers 404', '/missing', /HTTP 404/],
    ['never answers', '/hang', /no answer within 400 ms/],
    ['is larger than the cap', '/huge', /larger than 26214400 bytes/],
  ])('fails, sending nothing, when the attachment link %s', async (_label, path, reason) => {
    const err = await failure(
      send({ content: content({ mediaUrl: `${files.url}${path}`, mimeType: 'application/pdf', fileName: 'a.pdf' }) }),
    );
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/could not fetch the attachment/);
    // The reason tells which check decided: the timeout says "no answer within", and the cap on a
    // stalled /huge answers from its content-length (reading it would have run into the timeout).
    expect(err.message).toMatch(reason);
    expect(smtp.mails).toEqual([]);
  });

  it("fails with the server's reply when the relay refuses the recipient", async () => {
    smtp.onRcpt((address) => (address === 'nobody@example.com' ? { code: 550, message: '5.1.1 No such user here' } : 'accept'));
    const err = await failure(send({ to: 'nobody@example.com' }));

    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toContain('550 5.1.1 No such user here');
    expect(err.details).toEqual([expect.objectContaining({ provider: 'webmail', responseCode: 550 })]);
    expect(smtp.refused).toEqual(['nobody@example.com']);
    expect(smtp.mails).toEqual([]);
    // The pooled session survives a refusal: the next message goes through.
    smtp.reset();
    await send();
    expect(smtp.mails).toHaveLength(1);
  });

  it('reuses one pooled SMTP session for consecutive messages to one relay', async () => {
    const pooled = driverWith();
    const channel = target({ engineUrl: smtp.url });
    await pooled.send({ channel, to: 'a@example.com', content: content(), reference: 'm-a' });
    await pooled.send({ channel, to: 'b@example.com', content: content(), reference: 'm-b' });
    expect(smtp.mails.map((m) => m.rcptTo)).toEqual([['a@example.com'], ['b@example.com']]);
    expect(smtp.connections()).toBe(1);
  });

  it('logs in with the credentials of the relay URL', async () => {
    const withAuth = smtp.url.replace('smtp://', 'smtp://mailer%40shop.example:p%C3%A4ss%3Aword@');
    await send({ channel: target({ engineUrl: withAuth }) });
    expect(smtp.mails[0].auth).toEqual({ username: 'mailer@shop.example', password: 'päss:word' });
  });

  it('falls back to SMTP_URL when the channel has no smtp:// engineUrl', async () => {
    const viaEnv = driverWith({ smtpUrl: smtp.url });
    for (const engineUrl of ['', 'http://engine.internal:3000']) {
      await viaEnv.send({
        channel: target({ engineUrl }),
        to: 'ana@example.com',
        content: content(),
        reference: `env-${engineUrl.length}`,
      });
    }
    expect(smtp.mails).toHaveLength(2);
  });

  it('fails without connecting when there is no relay at all', async () => {
    const err = await failure(send({ channel: target({ engineUrl: '' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no SMTP relay/);
    expect(smtp.connections()).toBe(0);
  });

  it('fails without connecting when the channel has no From address', async () => {
    const err = await failure(send({ channel: target({ engineUrl: smtp.url, emailAddress: '' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/no emailAddress/);
    expect(smtp.connections()).toBe(0);
  });

  it('fails after the timeout when the relay never greets', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const err = await failure(send({ channel: target({ engineUrl: silent.url }) }));
      expect(err.code).toBe('ERR_PROVIDER_FAILED');
      // Only a timeout says "no answer within"; not before it (timers never fire early), and how
      // much later depends on the machine's load.
      expect(err.message).toMatch(/no answer within 400 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    } finally {
      await silent.close();
    }
  });

  it('fails on the timeout when the relay never answers the DATA', async () => {
    const stalled = driverWith();
    smtp.hangOnData();
    const err = await failure(
      stalled.send({ channel: target({ engineUrl: smtp.url }), to: 'ana@example.com', content: content(), reference: 'm-h' }),
    );
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    // Only a timeout says "no answer within".
    expect(err.message).toMatch(/no answer within 400 ms/);
  });

  it('fails as unreachable when nothing listens on the relay port', async () => {
    const err = await failure(send({ channel: target({ engineUrl: 'smtp://127.0.0.1:1' }) }));
    expect(err.code).toBe('ERR_PROVIDER_FAILED');
    expect(err.message).toMatch(/unreachable/);
  });
});

// ---- inbound-mail bridge -------------------------------------------------------------------

describe('WebmailDriver.parseInbound', () => {
  const driver = new WebmailDriver(settingsWith(TIMEOUT_MS));
  const email = {
    type: 'email',
    from: 'Ana@Example.com',
    fromName: 'Ana Lima',
    subject: 'Re: your order',
    text: 'Thanks!',
    messageId: '<CAF=abc@mail.example.com>',
    inReplyTo: '<msg-1@shop.example>',
    timestamp: '2026-01-02T03:04:05.000Z',
  };

  it('turns an e-mail into an incoming message of type email from the sender address', () => {
    expect(driver.parseInbound(target(), email)).toEqual([
      {
        kind: 'message',
        from: '',
        email: 'ana@example.com',
        contactName: 'Ana Lima',
        subject: 'Re: your order',
        body: 'Thanks!',
        messageType: 'email',
        providerMessageId: '<CAF=abc@mail.example.com>',
        replyTo: '<msg-1@shop.example>',
        timestampMs: Date.parse('2026-01-02T03:04:05.000Z'),
        rawJson: JSON.stringify(email),
      },
    ]);
  });

  it('carries the first attachment on the message and each further one as its own message', () => {
    const attachments = [
      { url: 'https://files.example/a.pdf', mimeType: 'application/pdf', fileName: 'a.pdf' },
      { url: 'https://files.example/b.png', mimeType: 'image/png', fileName: 'b.png' },
    ];
    const events = driver.parseInbound(target(), { ...email, attachments });
    expect(events.map((e) => [e.providerMessageId, e.body, e.messageType, e.mediaUrl, e.mimeType, e.fileName])).toEqual([
      ['<CAF=abc@mail.example.com>', 'Thanks!', 'email', 'https://files.example/a.pdf', 'application/pdf', 'a.pdf'],
      ['<CAF=abc@mail.example.com>#2', '', 'email', 'https://files.example/b.png', 'image/png', 'b.png'],
    ]);
  });

  it('takes an array of events and ignores event types it does not know', () => {
    const events = driver.parseInbound(target(), [{ type: 'bounce', messageId: 'x' }, email]);
    expect(events.map((e) => e.providerMessageId)).toEqual(['<CAF=abc@mail.example.com>']);
  });

  it('refuses an e-mail without sender or id, naming both', async () => {
    const err = await failure((async () => driver.parseInbound(target(), { type: 'email', text: 'hi' }))());
    expect(err.code).toBe('ERR_VALIDATION');
    expect(err.details).toEqual([
      { field: 'from', message: expect.any(String) },
      { field: 'messageId', message: expect.any(String) },
    ]);
  });

  it('refuses a sender that is not an address', () => {
    expect(() => driver.parseInbound(target(), { ...email, from: 'not an address' })).toThrow(/Invalid inbound e-mail/);
  });
});
