import { tenantRowsLoader } from '@convo/kit/graphql/loaders';
import { Arg, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { AttemptDoc, OutboxEventDoc, OutboxStatus } from '../outbox/outbox.models';
import { WebhookDeliveryStatusEnum } from './enums';
import type { InspectionService } from '../domain/inspection.service';
import { WebhookAttempt, WebhookDelivery } from './webhook-delivery.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toWebhookDelivery = (e: OutboxEventDoc): WebhookDelivery => ({
  id: e._id,
  tenantId: e.tenantId,
  channelId: e.channelId,
  method: e.method,
  target: e.target,
  apiId: e.apiId,
  parentId: e.parentId,
  status: e.status,
  attempts: e.attempts,
  nextAttemptAt: e.nextAttemptAt.toISOString(),
  lastError: e.lastError,
  lastHttpStatus: e.lastHttpStatus,
  payload: e.body,
  createdAt: e.createdAt.toISOString(),
  finishedAt: iso(e.finishedAt),
});

const toAttempt = (a: AttemptDoc): WebhookAttempt => ({
  number: a.gen,
  relayId: a.relayId,
  startedAt: a.startedAt.toISOString(),
  finishedAt: iso(a.finishedAt),
  outcome: a.outcome,
  url: a.url,
  httpStatus: a.httpStatus,
  durationMs: a.durationMs,
  error: a.error,
  nextAttemptAt: iso(a.nextAttemptAt),
});

/** Inspection of customer webhooks (super-admin, as every subgraph query). */
@Resolver(() => WebhookDelivery)
export class WebhookDeliveryResolver {
  constructor(private readonly inspection: InspectionService) {}

  @Query(() => [WebhookDelivery], { description: "A tenant's webhook events, newest first." })
  @TenantScoped('tenantId')
  async webhookDeliveries(
    @Arg('tenantId', () => Int) tenantId: number,
    @Arg('status', () => WebhookDeliveryStatusEnum, { nullable: true }) status: OutboxStatus | null,
    @Arg('channelId', () => Int, { nullable: true }) channelId: number | null,
    @Arg('limit', () => Int, { defaultValue: 50 }) limit: number,
  ): Promise<WebhookDelivery[]> {
    const events = await this.inspection.webhookDeliveries(
      tenantId,
      { status: status ?? undefined, channelId: channelId ?? undefined },
      limit,
    );
    return events.map(toWebhookDelivery);
  }

  @Query(() => WebhookDelivery, { nullable: true })
  @TenantScoped('tenantId')
  async webhookDelivery(@Arg('tenantId', () => Int) tenantId: number, @Arg('id') id: string): Promise<WebhookDelivery | null> {
    const event = await this.inspection.findWebhookDelivery(tenantId, id);
    return event ? toWebhookDelivery(event) : null;
  }

  @FieldResolver(() => [WebhookAttempt], { description: 'Every attempt, oldest first.' })
  async attemptLog(@Root() delivery: WebhookDelivery, @Ctx() context: unknown): Promise<WebhookAttempt[]> {
    // A list of deliveries reads its attempts once per request: one query for the list.
    const loader = tenantRowsLoader(context, 'WebhookDelivery.attemptLog', (tenantId, ids: readonly string[]) =>
      this.inspection.webhookAttemptsOf(tenantId, ids),
    );
    return ((await loader.load(delivery.tenantId, delivery.id)) ?? []).map(toAttempt);
  }
}
