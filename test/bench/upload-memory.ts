// npm run bench:uploads (in test/): concurrent media sends against a real mesh and a fake engine,
// with the gateway's RSS sampled from /proc throughout. Not a test: it prints figures.
//   UPLOADS (default 50) sends at once, each a ~20 MB body: a third base64 JSON on
//   sendMessageByTicket, a third multipart on sendMessageByTicket, a third base64 JSON or multipart
//   on the sends by number. Every answer must be a success or a 503 with Retry-After; every
//   accepted file must reach the engine as a link serving the same bytes (SHA-256 compared).
//   Extra env (e.g. BODY_BUDGET_BYTES) is passed to the mesh as is. RETRY_BUSY=1: a client answered
//   503 waits its Retry-After and sends again (at most 60 times), so every file goes through.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startFakeEngine, type Recorded } from '../support/fake-engine';
import { call, UNPACED } from '../support/http';
import { runScript } from './script';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const UPLOADS = Number(process.env.UPLOADS ?? 50);
/** 15 MiB of file: 20 MiB of base64, under the 16 MiB file and 24 MiB body limits. */
const FILE_BYTES = Number(process.env.UPLOAD_FILE_BYTES ?? 15 * 1024 * 1024);
const PASS_ENV = ['BODY_BUDGET_BYTES', 'MEDIA_BODY_LIMIT_BYTES', 'MEDIA_MAX_BYTES'];
const RETRY_BUSY = process.env.RETRY_BUSY === '1';

const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every string under `value` that looks like one of the gateway's media links. */
function mediaLinks(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' && value.includes('/media/')) out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) mediaLinks(v, out);
  return out;
}
const captionOf = (r: Recorded): string => JSON.stringify(r.body ?? '').match(/upload-\d+-[a-z0-9]+/)?.[0] ?? '';

async function main() {
  const engine = await startFakeEngine();
  const env: Record<string, string> = { ...UNPACED, RATE_LIMIT_PER_TOKEN: '0', RATE_LIMIT_PER_TENANT: '0' };
  for (const k of PASS_ENV) if (process.env[k]) env[k] = process.env[k]!;
  const mesh = await startMesh({ freePorts: true, env, onLine: () => undefined });
  try {
    const admin = mesh.superAdminToken;
    const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
      token: admin,
      body: {
        status: 'active',
        name: 'Uploads',
        maxUsers: 10,
        maxConnections: 10,
        acceptTerms: true,
        email: 'owner@uploads.example',
        password: 'S3cure!pass',
        userName: 'Owner',
        profile: 'admin',
      },
    });
    const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
      token: admin,
      body: { tenant: tenant.body.data.tenant.id, name: 'engine_a', type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' },
    });
    const root = `${mesh.gatewayUrl}/v2/api/external/${session.body.data.api.apiId}`;
    const token = session.body.data.api.authToken as string;
    const auth = { authorization: `Bearer ${token}` };
    // One ticket per send (deliveries of one ticket go in order, one at a time).
    const tickets: number[] = [];
    for (let i = 0; i < UPLOADS; i++) {
      const t = await call(`${root}/createTicket`, { token, body: { number: `55219${String(10_000_000 + i)}`, body: 'open' } });
      tickets.push(t.body.data.ticketId);
    }
    const gatewayPid = mesh.processes.get('gateway')!.pid!;
    // Let the opening messages go out first.
    await sleep(1_000);
    engine.requests.length = 0;

    const files = Array.from({ length: UPLOADS }, (_, i) => {
      const data = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(FILE_BYTES - 9)]);
      return { i, caption: `upload-${i}-${randomBytes(4).toString('hex')}`, data, hash: sha(data) };
    });
    const idle = rssMb(gatewayPid);
    let peak = idle;
    const samples: number[] = [];
    const sampler = setInterval(() => {
      const v = rssMb(gatewayPid);
      samples.push(v);
      peak = Math.max(peak, v);
    }, 20);

    const started = performance.now();
    const results = await Promise.all(
      files.map(async ({ i, caption, data }) => {
        let tries = 0;
        for (;;) {
          const r = await once(i, caption, data);
          tries++;
          if (!RETRY_BUSY || r.status !== 503 || !r.retryAfter || tries >= 60)
            return { ...r, tries, busy: r.status === 503 ? tries : tries - 1 };
          await sleep(Number(r.retryAfter) * 1000);
        }
      }),
    );
    async function once(i: number, caption: string, data: Buffer) {
      {
        const kind = i % 4;
        const number = `55219${String(10_000_000 + i)}`;
        let res: Response;
        try {
          if (kind === 0 || kind === 2) {
            // base64 JSON: sendMessageByTicket or {root}/base64
            const body = JSON.stringify({
              ...(kind === 0 ? { ticketId: tickets[i] } : { number }),
              body: caption,
              base64Data: data.toString('base64'),
              mimeType: 'application/pdf',
              fileName: `file-${i}`,
            });
            res = await fetch(kind === 0 ? `${root}/sendMessageByTicket` : `${root}/base64`, {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body,
              signal: AbortSignal.timeout(120_000),
            });
          } else {
            const form = new FormData();
            if (kind === 1) form.set('ticketId', String(tickets[i]));
            else form.set('number', number);
            form.set('body', caption);
            form.set('media', new Blob([data], { type: 'application/pdf' }), `file-${i}.pdf`);
            res = await fetch(kind === 1 ? `${root}/sendMessageByTicket` : root, {
              method: 'POST',
              headers: auth,
              body: form,
              signal: AbortSignal.timeout(120_000),
            });
          }
          const text = await res.text();
          return {
            i,
            status: res.status,
            retryAfter: res.headers.get('retry-after'),
            text: text.slice(0, 200),
            ms: performance.now() - started,
          };
        } catch (err) {
          return { i, status: 0, retryAfter: null, text: String(err), ms: performance.now() - started };
        }
      }
    }
    const elapsed = performance.now() - started;
    await sleep(500);
    clearInterval(sampler);

    const byStatus: Record<string, number> = {};
    for (const r of results) {
      const key = r.status === 503 ? `503${r.retryAfter ? `+Retry-After:${r.retryAfter}` : ' without Retry-After'}` : String(r.status);
      byStatus[key] = (byStatus[key] ?? 0) + 1;
    }
    const bad = results.filter((r) => r.status !== 200 && !(r.status === 503 && r.retryAfter));
    const accepted = results.filter((r) => r.status === 200);
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(
      `${UPLOADS} concurrent sends of a ${(FILE_BYTES / 2 ** 20).toFixed(0)} MiB file (base64 JSON bodies ${((Math.ceil(FILE_BYTES / 3) * 4) / 2 ** 20).toFixed(1)} MiB) in ${(elapsed / 1000).toFixed(1)} s`,
    );
    console.log(
      `answers: ${JSON.stringify(byStatus)}${RETRY_BUSY ? `; 503 answers on the way (retried): ${results.reduce((n, r) => n + r.busy, 0)}` : ''}`,
    );
    const p50 = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(0) : '-');
    console.log(
      `answer times from the start (median): 503 ${p50(results.filter((r) => r.status === 503).map((r) => r.ms))} ms, 200 ${p50(accepted.map((r) => r.ms))} ms`,
    );
    for (const r of bad.slice(0, 5)) console.log(`  unexpected: #${r.i} ${r.status} ${r.text}`);
    console.log(
      `gateway RSS: idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, p50 of samples ${sorted[Math.floor(sorted.length / 2)]?.toFixed(0)} MB (${samples.length} samples every 20 ms)`,
    );

    // Deliveries: each accepted file reaches the engine as a link serving the same bytes.
    const deadline = Date.now() + 120_000;
    const wanted = new Set(accepted.map((r) => files[r.i].caption));
    const seen = () => new Set(engine.requests.map(captionOf).filter((c) => wanted.has(c)));
    while (seen().size < wanted.size && Date.now() < deadline) await sleep(250);
    let same = 0;
    const problems: string[] = [];
    for (const r of accepted) {
      const f = files[r.i];
      const req = engine.requests.find((q) => captionOf(q) === f.caption);
      const link = req && mediaLinks(req.body)[0];
      if (!link) {
        problems.push(`#${r.i}: not delivered`);
        continue;
      }
      const res = await fetch(link, { signal: AbortSignal.timeout(30_000) });
      const got = Buffer.from(await res.arrayBuffer());
      if (sha(got) === f.hash) same++;
      else problems.push(`#${r.i}: ${res.status} ${got.length} bytes, hash differs: ${got.subarray(0, 120).toString()} (${link})`);
    }
    console.log(
      `delivered: ${same} of ${accepted.length} accepted files reached the engine with the same SHA-256${problems.length ? `; ${problems.slice(0, 5).join('; ')}` : ''}`,
    );
    console.log(
      `verdict: RSS ${peak < 512 ? '<' : '≥'} 512 MB; ${bad.length} answers neither success nor 503+Retry-After; ${accepted.length - same} accepted files not delivered intact`,
    );
  } finally {
    await mesh.stop();
    await engine.close();
  }
}

runScript(main);
