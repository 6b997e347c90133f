// npm run probe:signin (in test/): the sign-in targets, measured on a real mesh whose gateway
// shares its limits through Redis (REDIS_URL, default redis://127.0.0.1:6379). Not a test: it
// prints figures.
//   1. Answer times of sign-ins with an unknown e-mail and with a known e-mail and a wrong
//      password (p50 of each, alternated), on a replica with the sign-in limits off, so that only
//      the work behind the answer is measured.
//   2. 1,000 sign-in attempts in 10 s from one address against the default limits: how many are
//      refused 429, while another tenant's dashboard p50 is measured against its idle p50.
import { randomUUID } from 'node:crypto';
import { startGatewayReplica } from '../support/gateway-replica';
import { ADMIN_PASSWORD, newDashboardTenant } from '../support/dashboard';
import { UNPACED } from '../support/http';
import { runScript } from './script';

const { startMesh, freePort } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function timed(url: string, init: RequestInit): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
}

const signIn = (base: string, email: string, password: string) =>
  timed(`${base}/graphql/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });

async function main() {
  const prefix = `probe-rl-${randomUUID()}-`;
  const mesh = await startMesh({
    freePorts: true,
    env: { ...UNPACED, REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix },
    onLine: () => undefined,
  });
  const unlimited = await startGatewayReplica(await freePort(), {
    ...mesh.env,
    REDIS_URL,
    RATE_LIMIT_REDIS_PREFIX: prefix,
    LOGIN_RATE_LIMIT_PER_ADDRESS: '0',
    LOGIN_RATE_LIMIT_PER_EMAIL: '0',
  });
  try {
    const target = await newDashboardTenant(mesh, 'Target');
    const other = await newDashboardTenant(mesh, 'Other');

    // 1. Unknown vs known e-mail (wrong password), alternated, after a warm-up.
    const runs = Number(process.env.SIGNIN_RUNS ?? 200);
    const known: number[] = [];
    const unknown: number[] = [];
    const right: number[] = [];
    for (let i = 0; i < 10; i++) await signIn(unlimited.url, `warm-${i}@probe.example`, 'Wr0ng!pass');
    for (let i = 0; i < runs; i++) {
      const k = await signIn(unlimited.url, target.email, 'Wr0ng!pass');
      const u = await signIn(unlimited.url, `nobody-${i}-${randomUUID()}@probe.example`, 'Wr0ng!pass');
      if (k.status !== 401 || u.status !== 401) throw new Error(`sign-in answered ${k.status}/${u.status}`);
      known.push(k.ms);
      unknown.push(u.ms);
      if (i % 4 === 0) right.push((await signIn(unlimited.url, target.email, ADMIN_PASSWORD)).ms);
    }
    const [pk, pu] = [median(known), median(unknown)];
    console.log(
      `sign-in answer time p50 over ${runs} each: known e-mail, wrong password ${pk.toFixed(1)} ms; unknown e-mail ${pu.toFixed(1)} ms; difference ${((Math.abs(pk - pu) / pk) * 100).toFixed(1)} %`,
    );
    console.log(`  (known e-mail, right password: p50 ${median(right).toFixed(1)} ms over ${right.length})`);

    // 2. Another tenant's dashboard p50, idle, then during 1,000 attempts in 10 s from one address.
    const dashboard = () =>
      timed(`${mesh.gatewayUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${other.session}` },
        body: JSON.stringify({
          query: `{ tickets(tenantId: ${other.id}, first: 20) { totalCount nodes { id } } tags(tenantId: ${other.id}) { id } }`,
        }),
      });
    for (let i = 0; i < 10; i++) await dashboard();
    const idle: number[] = [];
    for (let i = 0; i < 100; i++) idle.push((await dashboard()).ms);

    const attempts = Number(process.env.SIGNIN_ATTEMPTS ?? 1000);
    const windowMs = 10_000;
    const statuses = new Map<number, number>();
    const busy: number[] = [];
    let attacking = true;
    const measure = (async () => {
      while (attacking) {
        busy.push((await dashboard()).ms);
        await sleep(20);
      }
    })();
    const t0 = Date.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < attempts; i++) {
      const due = t0 + (i * windowMs) / attempts;
      if (due > Date.now()) await sleep(due - Date.now());
      // Half on the tenant's own e-mail, half on e-mails that exist nowhere.
      const email = i % 2 ? target.email : `guess-${i}@probe.example`;
      sends.push(signIn(mesh.gatewayUrl, email, `Guess${i}!x`).then((r) => void statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)));
    }
    await Promise.all(sends);
    const spent = Date.now() - t0;
    attacking = false;
    await measure;
    const refused = statuses.get(429) ?? 0;
    console.log(
      `${attempts} sign-in attempts in ${(spent / 1000).toFixed(1)} s from one address: ${refused} refused 429 (${((refused / attempts) * 100).toFixed(1)} %); answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    const [pi, pb] = [median(idle), median(busy)];
    console.log(
      `another tenant's dashboard p50: idle ${pi.toFixed(1)} ms (100 requests), during the attempts ${pb.toFixed(1)} ms (${busy.length} requests): ${(pb / pi).toFixed(2)}×`,
    );
  } finally {
    await unlimited.stop();
    await mesh.stop();
  }
}

runScript(main);
