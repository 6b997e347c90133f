import { DomainError, safeRequest, type Logger, type SafeRequestOptions, type SafeResponse } from '@convo/kit';
import { LoopWorker } from '@convo/kit/worker-process';
import { childEvent } from '../outbox/events';
import type { AttemptResult, Lease, OutboxRepository } from '../outbox/outbox.repository';
import type { OutboxEventDoc, OutboxStatus } from '../outbox/outbox.models';
import { backoffMs, retryAfterMs } from '../backoff';
import { webhookAttempts } from '../queue-metrics';
import type { RelayConfig } from './config';
import { webhookSignature } from './signature';
import type { Targets } from './targets';

export type Send = (url: string, opts: SafeRequestOptions) => Promise<SafeResponse>;

/** Receivers answer with a status, not a document: a larger body is refused, not read. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

type Settings = Pick<
  RelayConfig,
  | 'relayId'
  | 'pollMs'
  | 'busyPollMs'
  | 'batchSize'
  | 'concurrency'
  | 'leaseMs'
  | 'timeoutMs'
  | 'connectTimeoutMs'
  | 'retryWindowMs'
  | 'backoffBaseMs'
  | 'backoffMaxMs'
  | 'retentionMs'
  | 'allowPrivate'
>;

/**
 * Delivers the outbox: claims due events (an attempt document with a unique id per generation,
 * see OutboxRepository.claim), posts each through the SSRF-filtered client with Standard Webhooks
 * headers, and records every attempt. Any number of relays may run on one database: an event is
 * held by one relay at a time, until its attempt finishes or its lease runs out.
 */
export class Relay extends LoopWorker {
  private readonly inFlight = new Map<string, { lease: Lease; done: Promise<void> }>();
  /** Attempts given up at shutdown: whatever they learn later is not theirs to record. */
  private readonly released = new Set<string>();
  private idleRounds = 0;
  private lastPruneAt = 0;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly targets: Targets,
    private readonly settings: Settings,
    log: Logger,
    private readonly send: Send = safeRequest,
  ) {
    super(log, { roundFailed: 'relay round failed', stallMs: Math.max(30_000, settings.pollMs * 10) });
  }

  /**
   * Rounds run when an attempt finishes (a free slot) and else after a wait: `busyPollMs` after a
   * round that claimed events, doubling with each round that found none, up to `pollMs`. With
   * events coming in, one waits about `busyPollMs` for a relay (at a flat 500 ms poll an event
   * stored between rounds waited up to 500 ms: in bench:inbound at a steady rate, the customer got
   * it 0.4–0.7 s after the provider had its answer); an idle relay reads the outbox every `pollMs`.
   */
  protected override async round(): Promise<number> {
    this.idleRounds = (await this.tick()) ? 0 : this.idleRounds + 1;
    await this.pruneNowAndThen();
    return this.idleWait();
  }

  protected override waitAfterFailure(): number {
    this.idleRounds++;
    return this.idleWait();
  }

  private idleWait(): number {
    return Math.min(this.settings.pollMs, this.settings.busyPollMs * 2 ** Math.min(this.idleRounds, 20));
  }

  /** Attempts under way: each is bounded by the request timeout. */
  protected override underWay(): Array<Promise<void>> {
    return [...this.inFlight.values()].map((p) => p.done);
  }

  /**
   * After the grace, what is still held is released so another relay takes it at once rather than
   * after the lease. The caller exits right after, which closes any request still open.
   */
  protected override async handBack(): Promise<void> {
    const held = [...this.inFlight.values()].map(({ lease }) => lease);
    held.forEach((lease) => this.released.add(lease.attemptId));
    await Promise.allSettled(held.map((lease) => this.outbox.release(lease)));
  }

  /**
   * One round: claim due events up to the free concurrency and start their attempts. Answers
   * whether the relay is busy: it claimed an event, or every slot is taken.
   */
  async tick(): Promise<boolean> {
    if (this.inFlight.size >= this.settings.concurrency) return true;
    let claimed = false;
    // Shuffled: replicas scanning the same due events contend less for the same first ones.
    const due = shuffle(await this.outbox.due(new Date(), this.settings.batchSize));
    for (const event of due) {
      if (!this.running || this.inFlight.size >= this.settings.concurrency) break;
      if (this.inFlight.has(event._id)) continue;
      const lease = await this.outbox.claim(event, this.settings.relayId, this.settings.leaseMs);
      if (!lease) continue;
      claimed = true;
      const done = this.attempt(lease)
        .catch((err: unknown) => this.log.error({ err, eventId: event._id }, 'attempt could not be recorded'))
        .finally(() => {
          this.inFlight.delete(event._id);
          // A free slot, or children of a fan-out to deliver: look again without waiting.
          this.wakeUp();
        });
      this.inFlight.set(event._id, { lease, done });
    }
    return claimed;
  }

  private async attempt(lease: Lease): Promise<void> {
    const event = lease.event;
    if (event.target === 'integrations') return this.fanOut(lease);
    const started = Date.now();
    let url = '';
    try {
      const target = await this.targets.resolve(event);
      if ('cancel' in target) return this.finish(lease, 'canceled', { outcome: 'canceled', error: target.cancel });
      url = target.url;
      if (!target.secrets.length) throw new Error('the channel has no webhook secret to sign with');
      const res = await this.post(event, target.url, target.secrets);
      const result = { url: displayUrl(url), httpStatus: res.status, durationMs: Date.now() - started };
      if (res.status >= 200 && res.status < 300) return this.finish(lease, 'delivered', { outcome: 'delivered', ...result });
      if (res.status === 410) return this.gone(lease, result);
      const waitMs = res.status === 429 || res.status === 503 ? retryAfterMs(res.headers['retry-after']) : null;
      return this.failed(lease, { ...result, error: `HTTP ${res.status}` }, waitMs);
    } catch (err) {
      const result = { url: displayUrl(url), durationMs: Date.now() - started, error: errorText(err) };
      // A target the SSRF rules refuse (a private address, not allow-listed) will never be allowed
      // by retrying: dead at once.
      if (err instanceof DomainError && err.code === 'ERR_URL_BLOCKED') return this.finish(lease, 'dead', { ...result, outcome: 'dead' });
      return this.failed(lease, result, null);
    }
  }

  private post(event: OutboxEventDoc, url: string, secrets: string[]): Promise<SafeResponse> {
    const timestamp = Math.floor(Date.now() / 1000);
    return this.send(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'convo-webhooks/1',
        'webhook-id': event._id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(secrets, event._id, timestamp, event.body),
      },
      body: event.body,
      connectTimeoutMs: this.settings.connectTimeoutMs,
      totalTimeoutMs: this.settings.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      allowPrivate: this.settings.allowPrivate,
    });
  }

  /** 410 Gone: the receiver asks us to stop. A channel webhook is switched off; nothing is retried. */
  private async gone(lease: Lease, result: Omit<AttemptResult, 'outcome'>): Promise<void> {
    const { event } = lease;
    let error = 'the receiver answered 410 Gone';
    if (event.target === 'channel') {
      await this.targets.disableChannelWebhook(event.tenantId, event.channelId);
      error += '; the channel webhook was switched off';
      this.log.warn({ channelId: event.channelId, tenantId: event.tenantId }, 'webhook answered 410: switched off');
    }
    return this.finish(lease, 'gone', { ...result, outcome: 'gone', error });
  }

  /** Retried with backoff (or after the receiver's Retry-After) until the event is older than the window. */
  private async failed(lease: Lease, result: Omit<AttemptResult, 'outcome'>, waitMs: number | null): Promise<void> {
    const { event } = lease;
    if (this.released.has(lease.attemptId)) return;
    // One reading for the decision and for the record: the attempt finished at `now`, the next one
    // is due `delayMs` later, exactly.
    const now = new Date();
    const attempts = event.attempts + 1;
    if (now.getTime() - event.createdAt.getTime() >= this.settings.retryWindowMs) {
      return this.finish(lease, 'dead', { ...result, outcome: 'dead' }, now);
    }
    webhookAttempts().inc({ outcome: 'failed' });
    const drawn = waitMs ?? backoffMs(attempts, this.settings.backoffBaseMs, this.settings.backoffMaxMs);
    const delayMs = Math.min(drawn, this.settings.retryWindowMs);
    const nextAttemptAt = new Date(now.getTime() + delayMs);
    await this.outbox.updateEvent(event._id, {
      attempts,
      nextAttemptAt,
      lastError: result.error ?? '',
      lastHttpStatus: result.httpStatus ?? 0,
    });
    await this.outbox.finishAttempt(lease, { ...result, outcome: 'failed', nextAttemptAt, delayMs }, now);
  }

  /** The event first, then its attempt: a claim of the next generation then sees the outcome. */
  private async finish(lease: Lease, status: OutboxStatus, result: AttemptResult, now = new Date()): Promise<void> {
    if (this.released.has(lease.attemptId)) return;
    await this.outbox.updateEvent(lease.eventId, {
      status,
      attempts: lease.event.attempts + 1,
      lastError: result.error ?? '',
      lastHttpStatus: result.httpStatus ?? 0,
      finishedAt: now,
    });
    await this.outbox.finishAttempt(lease, result, now);
    webhookAttempts().inc({ outcome: status });
  }

  /**
   * A status event goes to every integration of its channel that has the callback URL: one child
   * event each (own id, own retries). Children written by a fan-out that crashed half-way stay.
   */
  private async fanOut(lease: Lease): Promise<void> {
    const { event } = lease;
    try {
      const integrations = (await this.targets.integrations.of(event.tenantId, event.channelId)) ?? [];
      const field = event.urlField;
      const children = integrations.filter((i) => field && i[field]).map((i) => childEvent(event, i.apiId));
      await this.outbox.addMany(children);
      return this.finish(lease, 'fanned_out', {
        outcome: 'fanned_out',
        error: children.length ? '' : `no integration of the channel has a ${field || 'callback URL'}`,
      });
    } catch (err) {
      return this.failed(lease, { error: errorText(err) }, null);
    }
  }

  private async pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = Date.now();
    const pruned = await this.outbox.prune(new Date(Date.now() - this.settings.retentionMs));
    if (pruned) this.log.info({ pruned }, 'finished webhook events pruned');
  }
}

/** Origin and path only: a query string may carry the receiver's own credentials. */
function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
}

function errorText(err: unknown): string {
  if (err instanceof DomainError) {
    const reason = err.details?.[0] as { reason?: string; message?: string } | undefined;
    return `${err.code}: ${err.message}${reason?.message && reason.message !== err.message ? ` (${reason.message})` : ''}`;
  }
  return err instanceof Error ? err.message : String(err);
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
