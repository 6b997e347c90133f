import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime, JSONScalar } from '@convo/kit/graphql/scalars';
import type { AttemptOutcome, OutboxStatus, OutboxTarget, WebhookMethod } from '../outbox/outbox.models';
import { WebhookAttemptOutcomeEnum, WebhookDeliveryStatusEnum, WebhookMethodEnum, WebhookTargetEnum } from './enums';

@ObjectType({ description: 'One attempt to deliver a webhook event (one lease generation).' })
export class WebhookAttempt {
  @Field(() => Int) number!: number;
  @Field() relayId!: string;
  @Field(() => DateTime) startedAt!: string;
  @Field(() => DateTime, { nullable: true }) finishedAt!: string | null;
  @Field(() => WebhookAttemptOutcomeEnum, { nullable: true, description: 'null while under way' })
  outcome!: AttemptOutcome | null;
  @Field({ description: 'Origin and path of the target (no query string).' }) url!: string;
  @Field(() => Int, { description: 'HTTP status answered; 0 when no answer came.' }) httpStatus!: number;
  @Field(() => Int) durationMs!: number;
  @Field() error!: string;
  @Field(() => DateTime, { nullable: true }) nextAttemptAt!: string | null;
}

@ObjectType({ description: 'A customer webhook event of the outbox and its delivery state.' })
export class WebhookDelivery {
  @Field({ description: 'Also the webhook-id header.' }) id!: string;
  @Field(() => Int) tenantId!: number;
  @Field(() => Int) channelId!: number;
  @Field(() => WebhookMethodEnum) method!: WebhookMethod;
  @Field(() => WebhookTargetEnum) target!: OutboxTarget;
  @Field() apiId!: string;
  @Field() parentId!: string;
  @Field(() => WebhookDeliveryStatusEnum) status!: OutboxStatus;
  @Field(() => Int) attempts!: number;
  @Field(() => DateTime) nextAttemptAt!: string;
  @Field() lastError!: string;
  @Field(() => Int) lastHttpStatus!: number;
  @Field(() => JSONScalar, { description: 'The JSON body posted, as JSON.' }) payload!: string;
  @Field(() => DateTime) createdAt!: string;
  @Field(() => DateTime, { nullable: true }) finishedAt!: string | null;
}
