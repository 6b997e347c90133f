// The queues' gauges, read from the database when Prometheus scrapes (so every replica reports the
// whole queue: take max() across replicas). The *_oldest_age_seconds series are what the KEDA
// ScaledObjects of deploy/components/queue-autoscaling scale the workers on.
import { counter, gauge, type Logger } from '@convo/kit';
import type { MessagesRepository } from './db/messages.repository';
import type { OutboxRepository } from './outbox/outbox.repository';

/** A gauge set from the database at scrape time; a failed read keeps the last value (logged). */
function dbGauge(name: string, help: string, log: Logger, read: () => Promise<number>): void {
  gauge({
    name,
    help,
    async collect() {
      try {
        this.set(await read());
      } catch (err) {
        log.warn({ err, metric: name }, 'queue metric not read');
      }
    },
  });
}

const ageSeconds = (since: Date | null | undefined, now = Date.now()) => (since ? Math.max(0, (now - since.getTime()) / 1000) : 0);

/** The dispatcher's queue: every queued outgoing message, those waiting for a retry included. */
export function observeDeliveryQueue(repo: MessagesRepository, log: Logger): void {
  dbGauge('convo_delivery_queue_depth', 'Outgoing messages queued for delivery (status queued).', log, () => repo.queuedCount());
  dbGauge(
    'convo_delivery_queue_oldest_age_seconds',
    'Seconds since the oldest queued outgoing message was accepted (0 when the queue is empty).',
    log,
    async () => ageSeconds(await repo.oldestQueuedAt()),
  );
}

/**
 * The relay's outbox. Its age is how long the most overdue pending event has waited past its due
 * time: events waiting out a retry backoff do not count, so it says how far the relays lag, not
 * how long some receiver has been failing (convo_webhook_attempts_total says that).
 */
export function observeWebhookOutbox(outbox: OutboxRepository, log: Logger): void {
  webhookAttempts();
  dbGauge('convo_webhook_outbox_depth', 'Customer webhook events waiting for delivery (status pending).', log, () => outbox.pendingCount());
  dbGauge(
    'convo_webhook_outbox_oldest_age_seconds',
    'Seconds the most overdue pending webhook event has waited past its due time (0 when none is due).',
    log,
    async () => {
      const now = new Date();
      return ageSeconds(await outbox.oldestDue(now), now.getTime());
    },
  );
}

/** Webhook delivery attempts by outcome: delivered, failed (to be retried), gone, dead, canceled, fanned_out. */
export const webhookAttempts = () =>
  counter({
    name: 'convo_webhook_attempts_total',
    help: 'Customer webhook delivery attempts, by outcome.',
    labelNames: ['outcome'] as const,
  });
