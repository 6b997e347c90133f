import type { Mesh } from '@convo/dev-mesh';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, settled } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const MAX = 64 * 1024;
// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** sendMessageByTicket with files: JSON base64, multipart upload, mediaUrl, and every refusal. */
describe('sendMessageByTicket with media', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let root: string;
  let token: string;
  let ticketId: number;

  const send = (body: Record<string, unknown>) => call(`${root}/sendMessageByTicket`, { token, body: { ticketId, ...body } });
  const lastContent = () => engine.requests.at(-1)!.body.content;

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      env: { MEDIA_MAX_BYTES: String(MAX), DISPATCH_INTERVAL_MS_ENGINE_A: '0' },
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Media Co',
        maxUsers: 2,
        maxConnections: 2,
        acceptTerms: true,
        email: 'media@example.com',
        password: 'M3dia!pass',
        userName: 'M',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'wa', type: 'engine_a', engineUrl: engine.url },
    });
    ({ authToken: token } = session.body.data.api);
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    const t = await call(`${root}/createTicket`, { token, body: { number: '5511912345678', body: 'hi' } });
    ticketId = t.body.data.ticketId;
    await settled(root, token, t.body.data.messageId);
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  beforeEach(() => {
    engine.requests.length = 0;
  });

  it('stores base64 media and hands the engine a signed link that serves the same bytes', async () => {
    const res = await send({ body: 'A picture', base64Data: PNG.toString('base64'), mimeType: 'image/png', fileName: 'pixel' });
    expect(res.status).toBe(200);
    await eventually('the engine request', () => engine.requests.length >= 1);
    expect(engine.requests).toHaveLength(1);
    const content = lastContent();
    expect(content).toMatchObject({ caption: 'A picture', mimetype: 'image/png', image: { url: expect.stringContaining('/media/') } });
    const link = new URL(content.image.url);
    expect(link.pathname).toMatch(/\/pixel\.png$/);
    const file = await fetch(link);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(PNG);

    link.searchParams.set('sig', 'forged');
    expect((await fetch(link)).status).toBe(403);
  });

  it('takes a multipart upload with the other fields as form fields', async () => {
    const form = new FormData();
    form.set('ticketId', String(ticketId));
    form.set('body', 'The invoice');
    form.set('isClosed', 'false');
    form.set('media', new Blob([Buffer.from('%PDF-1.4 tiny')], { type: 'application/pdf' }), 'invoice.pdf');
    const res = await fetch(`${root}/sendMessageByTicket`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(res.status).toBe(200);
    const { messageId } = ((await res.json()) as { data: { messageId: string } }).data;
    expect(messageId).toEqual(expect.any(String));
    await settled(root, token, messageId);
    expect(lastContent()).toMatchObject({
      caption: 'The invoice',
      fileName: 'invoice.pdf',
      mimetype: 'application/pdf',
      document: { url: expect.any(String) },
    });
    const file = await fetch(lastContent().document.url);
    expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('%PDF-1.4 tiny');
  });

  it('refuses more than one media source', async () => {
    const res = await send({
      mediaUrl: 'https://example.com/a.png',
      base64Data: PNG.toString('base64'),
      mimeType: 'image/png',
      fileName: 'a',
    });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['base64Data', 'mediaUrl']);
    expect(engine.requests).toHaveLength(0);
  });

  it('requires mimeType and fileName with base64Data, and plain base64', async () => {
    const res = await send({ base64Data: '***' });
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['base64Data', 'fileName', 'mimeType']);
  });

  it('refuses path characters in fileName', async () => {
    const res = await send({ base64Data: PNG.toString('base64'), mimeType: 'image/png', fileName: '../../etc/passwd' });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'fileName', message: expect.any(String) }]);
    expect(engine.requests).toHaveLength(0);
  });

  it('answers 415 for a media type no driver carries', async () => {
    const res = await send({ base64Data: PNG.toString('base64'), mimeType: 'application/x-msdownload', fileName: 'setup' });
    expect(res.status).toBe(415);
    expect(res.body.error).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 above the media size limit, for base64 and for uploads', async () => {
    const big = Buffer.alloc(MAX + 1, 1);
    const json = await send({ base64Data: big.toString('base64'), mimeType: 'image/png', fileName: 'big' });
    expect(json.status).toBe(413);
    expect(json.body.error).toBe('ERR_PAYLOAD_TOO_LARGE');
    const form = new FormData();
    form.set('ticketId', String(ticketId));
    form.set('media', new Blob([big], { type: 'image/png' }), 'big.png');
    const upload = await fetch(`${root}/sendMessageByTicket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(upload.status).toBe(413);
    expect(engine.requests).toHaveLength(0);
  });

  it('never fetches a mediaUrl on a private or loopback address', async () => {
    for (const mediaUrl of [
      `${engine.url}/secret.png`,
      'http://169.254.169.254/latest/meta-data',
      'http://2130706433/x.png',
      'http://[::1]/x.png',
    ]) {
      const res = await send({ mediaUrl });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('ERR_URL_BLOCKED');
    }
    expect(engine.requests).toHaveLength(0);
  });

  it('leaves a closed ticket closed when the media is refused, even with reopen', async () => {
    await call(`${root}/updateticketinfo`, { token, body: { ticketId, status: 'closed' } });
    const res = await send({ reopen: true, base64Data: PNG.toString('base64'), mimeType: 'application/x-msdownload', fileName: 'x' });
    expect(res.status).toBe(415);
    const shown = await call(`${root}/showTicketById`, { token, body: { ticketId } });
    expect(shown.body.data.status).toBe('closed');
    const ok = await send({ reopen: true, body: 'Back again' });
    expect(ok.status).toBe(200);
  });
});
