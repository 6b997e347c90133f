// What the mesh benches share: their scripts in processes of their own (the fake provider), and a
// tenant with a channel and tickets to send to (run.ts, join.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Mesh } from '@convo/dev-mesh';
import { call } from '../support/http';

export interface Provider {
  url: string;
  /** Requests the provider has received. */
  count(): Promise<number>;
  /** From now on every answer waits this long. */
  delay(ms: number): Promise<unknown>;
  close(): void;
}

/**
 * Starts one of the bench's scripts in a process of its own and resolves with it and the JSON
 * object it prints as its first line (its address); rejects if it exits before.
 */
export function startScript<T>(script: string, env: NodeJS.ProcessEnv, ipc = false): Promise<{ child: ChildProcess; ready: T }> {
  const child = spawn(process.execPath, [join(__dirname, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit', ...(ipc ? ['ipc' as const] : [])] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ready: JSON.parse(line) as T }));
    child.once('exit', (code) => reject(new Error(`${script} exited (${code})`)));
  });
}

/** The fake provider (provider.ts) in its own process. */
export async function startProvider(): Promise<Provider> {
  const { child, ready } = await startScript<{ url: string }>('provider.js', {}, true);
  const waiting = new Map<number, { resolve: (count: number) => void; reject: (err: Error) => void }>();
  let asked = 0;
  child.on('message', (m: { id: number; count: number }) => {
    waiting.get(m.id)?.resolve(m.count);
    waiting.delete(m.id);
  });
  // A provider that dies mid-run fails the bench instead of leaving it waiting for an answer.
  child.once('exit', (code) => {
    for (const { reject } of waiting.values()) reject(new Error(`provider exited (${code})`));
    waiting.clear();
  });
  const ask = (message: object) =>
    new Promise<number>((resolve, reject) => {
      if (child.exitCode !== null || !child.connected) return reject(new Error('provider is gone'));
      const id = ++asked;
      waiting.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
  return { url: ready.url, count: () => ask({ count: true }), delay: (delayMs) => ask({ delayMs }), close: () => child.disconnect() };
}

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

/** A tenant, an unpaced engine channel on `engine` and `tickets` tickets (each with a message delivered). */
export async function prepareSends(mesh: Mesh, engine: Provider, tickets: number): Promise<SendTarget> {
  const admin = mesh.superAdminToken;
  const tenant = await call(`${mesh.gatewayUrl}/tenantApiStoreTenant`, {
    token: admin,
    body: { status: 'active', name: 'Bench', maxUsers: 1, maxConnections: 1, acceptTerms: true, email: `bench-${randomUUID()}@example.com`, password: 'B3nch!mark', userName: 'Bench', profile: 'admin' },
  });
  // Unpaced: the bench measures the pipeline, not the pacing that protects a real number.
  const session = await call(`${mesh.gatewayUrl}/tenantApiCreateSession`, {
    token: admin,
    body: { tenant: tenant.body.data.tenant.id, name: 'bench', type: 'engine_a', engineUrl: engine.url, sendIntervalMs: 0 },
  });
  const { apiId, authToken } = session.body.data.api;
  const root = `${mesh.gatewayUrl}/v2/api/external/${apiId}`;
  const before = await engine.count();
  const ticketIds: number[] = [];
  for (let t = 0; t < tickets; t++) {
    const ticket = await call(`${root}/createTicket`, { token: authToken, body: { number: `55119876${String(t).padStart(5, '0')}`, body: 'warm-up' } });
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
