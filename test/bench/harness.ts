// What the benches share: their helper scripts in processes of their own, the fake provider over
// IPC, FerretDB's command counter, the median, and a tenant with a channel and tickets to send to.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import type { Mesh } from '@convo/dev-mesh';
import { call } from '../support/http';

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Starts one of the bench's scripts in a process of its own and resolves with it and the JSON
 * object it prints as its first line (its address); rejects if it exits before.
 */
export function startScript<T>(script: string, env: NodeJS.ProcessEnv, ipc = false): Promise<{ child: ChildProcess; ready: T }> {
  const child = spawn(process.execPath, [join(__dirname, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc' as const] : [])],
  });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ready: JSON.parse(line) as T }));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/**
 * Asks a script started with IPC (`startScript(…, true)`) questions: each message goes with an
 * `id`, and the script's answer carrying that id resolves it. A script that dies fails the bench
 * instead of leaving it waiting for an answer.
 */
export function asker<A>(child: ChildProcess): (message: object) => Promise<A> {
  const waiting = new Map<number, { resolve: (answer: A) => void; reject: (err: Error) => void }>();
  let asked = 0;
  child.on('message', (m: { id: number }) => {
    waiting.get(m.id)?.resolve(m as A);
    waiting.delete(m.id);
  });
  child.once('exit', (code) => {
    for (const { reject } of waiting.values()) reject(new Error(`helper process exited (${code})`));
    waiting.clear();
  });
  return (message) =>
    new Promise<A>((resolve, reject) => {
      if (child.exitCode !== null || !child.connected) return reject(new Error('helper process is gone'));
      const id = ++asked;
      waiting.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
}

export interface Provider {
  url: string;
  /** Requests the provider has received. */
  count(): Promise<number>;
  /** From now on every answer waits this long. */
  delay(ms: number): Promise<unknown>;
  close(): void;
}

/** The fake provider (provider.ts) in its own process. */
export async function startProvider(): Promise<Provider> {
  const { child, ready } = await startScript<{ url: string }>('provider.js', {}, true);
  const ask = asker<{ count: number }>(child);
  return {
    url: ready.url,
    count: () => ask({ count: true }).then((a) => a.count),
    delay: (delayMs) => ask({ delayMs }),
    close: () => child.disconnect(),
  };
}

/** Data commands the database served (FerretDB's own counter), by command; connection housekeeping left out. */
const DATA_COMMANDS = new Set(['find', 'insert', 'update', 'delete', 'findAndModify', 'count', 'aggregate', 'getMore', 'distinct']);
export async function databaseCommands(metricsUrl?: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (!metricsUrl) return counts;
  const text = await (await fetch(metricsUrl)).text();
  for (const m of text.matchAll(/^ferretdb_client_requests_total\{command="([^"]+)"[^}]*\} (\d+)/gm)) {
    if (DATA_COMMANDS.has(m[1])) counts.set(m[1], (counts.get(m[1]) ?? 0) + Number(m[2]));
  }
  return counts;
}
export const diff = (after: Map<string, number>, before: Map<string, number>) =>
  new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, v]) => v > 0));
export const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Waits until the provider has received `target` requests (or `timeoutMs` passed); answers when. */
export async function untilDelivered(engine: Provider, target: number, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  while ((await engine.count()) < target && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return Date.now();
}

/**
 * The abuse limits (600 sends per token per 10 s) would cap the send path at 60/s and turn the rest
 * into 429s: the benches measure the path, so one token may use all of it.
 */
export const UNLIMITED = { RATE_LIMIT_PER_TOKEN: '100000000', RATE_LIMIT_PER_TENANT: '100000000' };

export interface SendTarget {
  tenantId: number;
  channelId: number;
  ticketIds: number[];
  /** The external API's root for the session's apiId on the mesh's first gateway. */
  root: string;
  apiId: string;
  headers: Record<string, string>;
  /** One sendMessageByTicket body per ticket. */
  bodies: string[];
}

export interface SendChannel {
  /** The channel's kind (engine_a unless said). */
  type?: string;
  /** More fields of the session (a waba channel's ids). */
  session?: Record<string, unknown>;
  /** Runs for each contact before its ticket is opened (a waba contact writes first). */
  beforeTicket?: (number: string) => Promise<void>;
}

/** A tenant, an unpaced channel on `engine` and `tickets` tickets (each with a message delivered). */
export async function prepareSends(mesh: Mesh, engine: Provider, tickets: number, channel: SendChannel = {}): Promise<SendTarget> {
  const admin = mesh.superAdminToken;
  const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
    token: admin,
    body: {
      status: 'active',
      name: 'Bench',
      maxUsers: 1,
      maxConnections: 1,
      acceptTerms: true,
      email: `bench-${randomUUID()}@example.com`,
      password: 'B3nch!mark',
      userName: 'Bench',
      profile: 'admin',
    },
  });
  // Unpaced: the bench measures the pipeline, not the pacing that protects a real number.
  const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
    token: admin,
    body: {
      tenant: tenant.body.data.tenant.id,
      name: 'bench',
      type: channel.type ?? 'engine_a',
      engineUrl: engine.url,
      sendIntervalMs: 0,
      ...channel.session,
    },
  });
  const { apiId, authToken } = session.body.data.api;
  const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
  const before = await engine.count();
  const ticketIds: number[] = [];
  for (let t = 0; t < tickets; t++) {
    const number = `55119876${String(t).padStart(5, '0')}`;
    await channel.beforeTicket?.(number);
    const ticket = await call(`${root}/createTicket`, { token: authToken, body: { number, body: 'warm-up' } });
    ticketIds.push(ticket.body.data.ticketId);
  }
  await untilDelivered(engine, before + tickets, 30_000);
  return {
    tenantId: tenant.body.data.tenant.id,
    channelId: session.body.data.whatsapp.id,
    ticketIds,
    root,
    apiId,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${authToken}` },
    bodies: ticketIds.map((ticketId) => JSON.stringify({ ticketId, body: 'Benchmark message' })),
  };
}
