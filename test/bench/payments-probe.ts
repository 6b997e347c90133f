// npm run probe:payments (in test/): 1,000 payment webhooks in 10 s across the four gateways on a
// real mesh, the gateways' APIs fake servers on loopback. Not a test: it prints figures.
//   - every answer is 200 (proven) or 401 (forged), nothing else;
//   - each proven event is recorded once and applied at most once (its repeats answered duplicate);
//   - another route's p50 (tenantApiShowTenant) under the load against its idle p50.
import { asaasDelivery, efiDelivery, mercadoPagoDelivery, startFakePaymentGateways, type PaymentDelivery } from '@convo/test-support';
import mongoose from 'mongoose';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import Stripe from 'stripe';
import { call } from '../support/http';
import { databaseCommands } from './harness';
import { cpuMs, cpuSince, cpuSnapshot, databasePids, isFerretDb } from './proc-cpu';
import { runScript } from './script';

const { startMesh } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const TOTAL = Number(process.env.PROBE_WEBHOOKS ?? 1000);
const SECONDS = Number(process.env.PROBE_SECONDS ?? 10);
const SECRETS = {
  gateway_a: 'asaas-probe-token-0123456789abcdef',
  gateway_b: 'whsec_probe0123456789abcdef0123456789',
  gateway_c: 'mp-probe-secret-0123456789',
  gateway_d: 'efi-probe-hmac-0123456789',
} as const;
type Gateway = keyof typeof SECRETS;
const GATEWAYS = Object.keys(SECRETS) as Gateway[];
const NAME: Record<Gateway, string> = { gateway_a: 'asaas', gateway_b: 'stripe', gateway_c: 'mercadopago', gateway_d: 'efi' };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const brazilLocal = (ms: number) => new Date(ms - 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
const stripe = new Stripe('sk_test_probe_not_a_key');

/** On a loaded machine a mesh may miss its start-up deadline: up to three tries. */
async function startProbeMesh(env: Record<string, string>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startMesh({ freePorts: true, env, onLine: () => undefined, startTogether: true });
    } catch (err) {
      if (attempt >= 3) throw err;
      console.error(`mesh start failed (${(err as Error).message}); once more`);
    }
  }
}

async function main() {
  const fakes = await startFakePaymentGateways();
  const env = {
    ...Object.fromEntries(Object.entries(SECRETS).map(([gw, s]) => [`PAYMENT_WEBHOOK_SECRET_${gw.toUpperCase()}`, s])),
    ...fakes.env,
    PAYMENT_RECONCILE_INTERVAL_MS: '0',
  };
  const mesh = await startProbeMesh(env);
  const B = mesh.gatewayUrl;
  const admin = mesh.superAdminToken;
  try {
    // Ten tenants per gateway, provisioned with the real names.
    const tenants: Array<{ gw: Gateway; id: number; customerId: string }> = [];
    for (const gw of GATEWAYS) {
      for (let i = 0; i < 10; i++) {
        const customerId = gw === 'gateway_c' ? String(1e9 + tenants.length) : `cus_probe_${randomUUID().slice(0, 8)}`;
        const res = await call(`${B}/tenantApiStoreTenant`, {
          token: admin,
          body: {
            status: 'active',
            name: `Probe ${gw} ${i}`,
            maxUsers: 5,
            maxConnections: 5,
            acceptTerms: true,
            identity: `${Date.now()}${i}${tenants.length}`.slice(-14),
            email: `probe-${randomUUID()}@probe.example`,
            password: 'S3cure!pass',
            userName: 'Owner',
            profile: 'admin',
            paymentGateway: NAME[gw],
            [`${NAME[gw]}CustomerId`]: customerId,
            [`${NAME[gw]}Token`]: `tok-${randomUUID()}`,
            ...(gw === 'gateway_a' ? { asaas: 'enabled' } : {}),
          },
        });
        tenants.push({ gw, id: res.body.data.tenant.id, customerId });
      }
    }

    // The deliveries: 80 % proven new events, 10 % repeats of one of them, 10 % forged.
    const start = Date.now();
    const plan: Array<{ gw: Gateway; d: PaymentDelivery; kind: 'new' | 'repeat' | 'forged'; eventKey?: string }> = [];
    const proven: Array<{ gw: Gateway; d: PaymentDelivery; eventKey: string }> = [];
    for (let i = 0; i < TOTAL; i++) {
      const gw = GATEWAYS[i % 4];
      const t = tenants.filter((x) => x.gw === gw)[Math.floor(i / 4) % 10];
      const roll = i % 10;
      if (roll === 9 && proven.length) {
        const p = proven[Math.floor(Math.random() * proven.length)];
        plan.push({ gw: p.gw, d: p.d, kind: 'repeat', eventKey: p.eventKey });
        continue;
      }
      const at = start - 3_600_000 + i * 1000;
      const status = i % 3 === 0 ? 'overdue' : 'paid';
      let d: PaymentDelivery;
      let eventKey: string;
      switch (gw) {
        case 'gateway_a': {
          const id = `evt_${randomUUID()}`;
          d = asaasDelivery(SECRETS.gateway_a, {
            id,
            event: status === 'paid' ? 'PAYMENT_RECEIVED' : 'PAYMENT_OVERDUE',
            customer: t.customerId,
            dateCreated: brazilLocal(at),
          });
          eventKey = `gateway_a:${id}`;
          break;
        }
        case 'gateway_b': {
          const id = `evt_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
          const body = JSON.stringify({
            id,
            object: 'event',
            type: status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed',
            created: Math.floor(at / 1000),
            data: { object: { object: 'invoice', customer: t.customerId } },
          });
          d = {
            query: '',
            headers: {
              'content-type': 'application/json',
              'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRETS.gateway_b }),
            },
            body,
          };
          eventKey = `gateway_b:${id}`;
          break;
        }
        case 'gateway_c': {
          const id = String(5e11 + i);
          const updatedAt = new Date(at).toISOString();
          const mpStatus = status === 'paid' ? 'approved' : 'pending';
          fakes.setPayment('mercadoPago', { id, customerId: t.customerId, status: mpStatus, updatedAt });
          d = mercadoPagoDelivery(SECRETS.gateway_c, id);
          eventKey = `gateway_c:${id}:${mpStatus}:${updatedAt}`;
          break;
        }
        case 'gateway_d': {
          const token = randomUUID();
          fakes.setEfiNotification(token, [
            { id: 7, status: status === 'paid' ? 'paid' : 'unpaid', customId: t.customerId, createdAt: brazilLocal(at) },
          ]);
          d = efiDelivery(SECRETS.gateway_d, token);
          eventKey = `gateway_d:${token}:7`;
          break;
        }
      }
      if (roll === 8) {
        // Forged: the right shape, the wrong proof.
        const forged =
          gw === 'gateway_d'
            ? efiDelivery('forged', new URLSearchParams(d.body).get('notification')!)
            : gw === 'gateway_a'
              ? { ...d, headers: { ...d.headers, 'asaas-access-token': 'forged-token' } }
              : gw === 'gateway_c'
                ? { ...d, query: d.query.replace('data.id=', 'data.id=9') }
                : { ...d, body: `${d.body} ` };
        plan.push({ gw, d: forged, kind: 'forged' });
        continue;
      }
      plan.push({ gw, d, kind: 'new', eventKey });
      proven.push({ gw, d, eventKey });
    }

    // Another route, idle and then under the load.
    const probeRoute = async (ms: number) => {
      const lat: number[] = [];
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const t0 = performance.now();
        await call(`${B}/tenantApiShowTenant`, { token: admin, body: { id: tenants[0].id } });
        lat.push(performance.now() - t0);
        await sleep(50);
      }
      return lat;
    };
    const idle = await probeRoute(5_000);

    const answers = new Map<string, number>();
    const latencies: number[] = [];
    let duplicates = 0;
    const gapMs = (SECONDS * 1000) / TOTAL;
    // What the load costs: FerretDB's commands, and the CPU of each mesh process and of the database.
    const named = [...mesh.processes.entries()].map(([name, p]) => ({ name, pid: p.pid! }));
    const cpu0 = named.map(({ pid }) => cpuMs(pid));
    const dbPids = () => databasePids(mesh.database.uri, mesh.database.postgresUrl);
    const db0 = cpuSnapshot(dbPids());
    const cmd0 = await databaseCommands(mesh.database.metricsUrl);
    const load0 = loadAverage();
    const t0 = Date.now();
    const loaded = probeRoute(SECONDS * 1000);
    await Promise.all(
      plan.map(async (p, i) => {
        await sleep(t0 + i * gapMs - Date.now());
        const s = performance.now();
        let status: string;
        try {
          const res = await fetch(`${B}/webhooks/payments/${NAME[p.gw]}${p.d.query ? `?${p.d.query}` : ''}`, {
            method: 'POST',
            headers: p.d.headers,
            body: p.d.body,
            signal: AbortSignal.timeout(30_000),
          });
          status = String(res.status);
          const body = (await res.json()) as { data?: { duplicate?: boolean } };
          if (body.data?.duplicate) duplicates++;
        } catch (err) {
          status = (err as Error).name;
        }
        latencies.push(performance.now() - s);
        answers.set(`${p.kind}:${status}`, (answers.get(`${p.kind}:${status}`) ?? 0) + 1);
      }),
    );
    const sentIn = (Date.now() - t0) / 1000;
    const busy = await loaded;
    const load1 = loadAverage();
    const cmd1 = await databaseCommands(mesh.database.metricsUrl);
    const commands: Record<string, number> = Object.fromEntries(
      [...cmd1].map(([k, v]) => [k, v - (cmd0.get(k) ?? 0)] as const).filter(([, v]) => v > 0),
    );
    const commandTotal = Object.values(commands).reduce((a, b) => a + b, 0);
    const cpuMsByProcess = Object.fromEntries(
      named.map(({ name, pid }, i) => [name, Math.round(cpuMs(pid) - cpu0[i])]).filter(([, v]) => Number(v) > 0),
    );
    const dbNow = dbPids();
    const ferretCpu = cpuSince(db0, dbNow.filter(isFerretDb));
    cpuMsByProcess['database: FerretDB'] = Math.round(ferretCpu);
    cpuMsByProcess['database: PostgreSQL'] = Math.round(cpuSince(db0, dbNow) - ferretCpu);

    // What the database holds: one record per proven event, its repeats counted on it.
    const conn = await mongoose.createConnection(mesh.database.uri, { dbName: 'convo_tenants' }).asPromise();
    const keys = [...new Set(proven.map((p) => p.eventKey))];
    const records = await conn
      .collection('payment_events')
      .find({ _id: { $in: keys as never[] } })
      .toArray();
    const repeatsSent = plan.filter((p) => p.kind === 'repeat').length;
    const repeatsRecorded = await conn.collection('payment_event_repeats').countDocuments({ eventKey: { $in: keys } });
    const outcomes: Record<string, number> = {};
    for (const r of records) outcomes[String(r.outcome)] = (outcomes[String(r.outcome)] ?? 0) + 1;
    const changes = await conn.collection('payment_changes').countDocuments({ tenantId: { $in: tenants.map((t) => t.id) } });
    await conn.close();

    console.log(
      JSON.stringify(
        {
          webhooks: TOTAL,
          sentInSeconds: Number(sentIn.toFixed(2)),
          answers: Object.fromEntries([...answers].sort()),
          otherThan200or401: [...answers].filter(([k]) => !/:(200|401)$/.test(k)).reduce((n, [, v]) => n + v, 0),
          provenEvents: keys.length,
          recordsOfProvenEvents: records.length,
          repeatsSent,
          repeatsRecorded,
          duplicateAnswers: duplicates,
          outcomes,
          statusChanges: changes,
          webhookLatencyMs: {
            p50: Number(pct(latencies, 50).toFixed(1)),
            p95: Number(pct(latencies, 95).toFixed(1)),
            max: Number(Math.max(...latencies).toFixed(1)),
          },
          databaseCommands: {
            ...commands,
            total: commandTotal,
            perProvenDelivery: Number(
              (commandTotal / Math.max(1, plan.length - plan.filter((p) => p.kind === 'forged').length)).toFixed(2),
            ),
          },
          cpuMsByProcess,
          loadAverage: { before: load0, after: load1 },
          otherRouteP50Ms: {
            idle: Number(pct(idle, 50).toFixed(1)),
            underLoad: Number(pct(busy, 50).toFixed(1)),
            ratio: Number((pct(busy, 50) / pct(idle, 50)).toFixed(2)),
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await mesh.stop();
    await fakes.close();
  }
}

function loadAverage(): string {
  return loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
}

runScript(main);
