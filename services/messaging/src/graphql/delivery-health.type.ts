import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({
  description: "One channel's delivery health: the message queue toward the provider and the webhook outbox toward the customer.",
})
export class ChannelDeliveryHealth {
  @Field(() => Int) channelId!: number;
  @Field(() => Int, { description: 'Messages accepted and not yet handed to the provider.' }) queued!: number;
  @Field(() => Int, { nullable: true, description: 'Age in seconds of the oldest queued message.' }) oldestQueuedAgeSeconds!: number | null;
  @Field(() => Int, { description: 'Messages the provider refused (status failed).' }) failed!: number;
  @Field(() => Int, { description: 'Webhook events not delivered yet (retrying).' }) webhooksPending!: number;
  @Field(() => Int, { nullable: true }) oldestWebhookPendingAgeSeconds!: number | null;
  @Field(() => Int, { description: 'Webhook events given up after the retry window: replayable.' }) webhooksDead!: number;
}
