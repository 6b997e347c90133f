import type { Mesh } from '@convo/dev-mesh';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { startFakeEngine, type FakeEngine } from '../support/fake-engine';
import { call, eventually, UNPACED } from '../support/http';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const MiB = 1024 * 1024;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * Request bodies the gateway holds: files of megabytes go through (streamed base64, multipart) and
 * reach the provider whole; past the body budget a send is refused at once with 503 ERR_BUSY and
 * Retry-After; a number a double cannot hold is a 400, not a database error.
 */
describe('request bodies', () => {
  let mesh: Mesh;
  let engine: FakeEngine;
  let root: string;
  let token: string;
  const tickets: number[] = [];

  beforeAll(async () => {
    engine = await startFakeEngine();
    mesh = await startMesh({
      freePorts: true,
      onLine: () => undefined,
      env: { ...UNPACED, BODY_BUDGET_BYTES: String(16 * MiB), RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_TENANT: '0' },
    });
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Bodies',
        maxUsers: 2,
        maxConnections: 2,
        acceptTerms: true,
        email: 'bodies@example.com',
        password: 'B0dies!pass',
        userName: 'B',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'wa', type: 'engine_a', engineUrl: engine.url },
    });
    ({ authToken: token } = session.body.data.api);
    root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    for (let i = 0; i < 8; i++)
      tickets.push(
        (await call(`${root}/createTicket`, { token, body: { number: `551191234${5000 + i}`, body: 'hi' } })).body.data.ticketId,
      );
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  /** The file the engine was handed for the message captioned `caption`, fetched by its link. */
  async function delivered(caption: string): Promise<Buffer> {
    const req = await eventually(
      `the engine request of ${caption}`,
      () => engine.requests.find((r) => JSON.stringify(r.body).includes(caption)),
      30_000,
    );
    const link = JSON.stringify(req.body).match(/"(http[^"]*\/media\/[^"]*)"/)![1];
    const res = await fetch(link, { signal: AbortSignal.timeout(30_000) });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }

  it('takes files of megabytes in base64 (slashes escaped, as PHP writes them) and multipart, and the provider gets them whole', async () => {
    const file = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(6 * MiB)]);
    const json = `{"ticketId":${tickets[0]},"body":"big-json","base64Data":"${file.toString('base64').replace(/\//g, '\\/')}","mimeType":"application/pdf","fileName":"big"}`;
    const res = await fetch(`${root}/sendMessageByTicket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: json,
      signal: AbortSignal.timeout(60_000),
    });
    expect(res.status).toBe(200);
    expect(sha(await delivered('big-json'))).toBe(sha(file));

    const form = new FormData();
    form.set('number', '5511912345099');
    form.set('body', 'big-form');
    form.set('media', new Blob([file], { type: 'application/pdf' }), 'big.pdf');
    const upload = await fetch(root, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
      signal: AbortSignal.timeout(60_000),
    });
    expect(upload.status).toBe(200);
    expect(sha(await delivered('big-form'))).toBe(sha(file));
  });

  it('refuses at once with 503 ERR_BUSY and Retry-After the sends past the body budget, and delivers every one it accepted', async () => {
    const file = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(5 * MiB)]);
    const answers = await Promise.all(
      tickets.map(async (ticketId, i) => {
        const body = JSON.stringify({
          ticketId,
          body: `busy-${i}`,
          base64Data: file.toString('base64'),
          mimeType: 'application/pdf',
          fileName: `f${i}`,
        });
        const res = await fetch(`${root}/sendMessageByTicket`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(60_000),
        });
        return { i, status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error?: string } };
      }),
    );
    // 8 bodies of 6.7 MiB against 16 MiB: at most two held at once.
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const a of busy) expect({ retryAfter: a.retryAfter, error: a.body.error }).toEqual({ retryAfter: '2', error: 'ERR_BUSY' });
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted.length + busy.length).toBe(answers.length);
    expect(accepted.length).toBeGreaterThan(0);
    for (const a of accepted) expect(sha(await delivered(`busy-${a.i}`))).toBe(sha(file));
    // Once the held bodies are answered, the budget is free again.
    const again = await fetch(`${root}/sendMessageByTicket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        ticketId: tickets[busy[0].i],
        body: 'after',
        base64Data: file.toString('base64'),
        mimeType: 'application/pdf',
        fileName: 'after',
      }),
      signal: AbortSignal.timeout(60_000),
    });
    expect(again.status).toBe(200);
  });

  it('tells a client that asks Expect: 100-continue to send its body once it is admitted', async () => {
    const body = JSON.stringify({
      ticketId: tickets[1],
      body: 'expect-continue',
      base64Data: Buffer.from('%PDF-1.4 small').toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'small',
    });
    const answer = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      let continued = false;
      const url = new URL(`${root}/sendMessageByTicket`);
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
        },
      });
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, continued }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(answer).toEqual({ status: 200, continued: true });
  });

  it('answers 400 ERR_VALIDATION, not a database error, for a number beyond a double', async () => {
    for (const value of ['1e400', '"1e400"', '"Infinity"']) {
      const res = await fetch(`${root}/createTicket`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: `{"number":"5511912345777","body":"x","value":${value}}`,
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await res.json()) as { error: string; details: Array<{ field: string }> };
      expect({ value, status: res.status, error: body.error, field: body.details?.[0]?.field }).toEqual({
        value,
        status: 400,
        error: 'ERR_VALIDATION',
        field: 'value',
      });
    }
  });
});
