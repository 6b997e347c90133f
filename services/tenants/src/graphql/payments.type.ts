import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';

@ObjectType({ description: 'A proven payment-gateway webhook (or a reconciliation reading) and what it did.' })
export class PaymentWebhookRecord {
  @Field({ description: 'gateway_a … gateway_d' }) gateway!: string;
  @Field() eventId!: string;
  @Field({ description: "The gateway's event type (Mercado Pago, Efí: payment./charge. and the status read back)" }) type!: string;
  @Field() customerId!: string;
  @Field(() => Int, { nullable: true, description: 'null: no tenant has the customer' }) tenantId!: number | null;
  @Field({ description: "The payment status the event means; '' when none" }) status!: string;
  @Field({ description: 'applied, older (a newer status stands), unknown_customer, ignored_type, other_gateway' }) outcome!: string;
  @Field(() => Int, { description: 'Deliveries of the same event after the first' }) repeats!: number;
  @Field({ description: 'webhook or reconciliation' }) source!: string;
  @Field(() => DateTime, { description: "The event's own time" }) eventAt!: string;
  @Field(() => DateTime) receivedAt!: string;
}

@ObjectType({ description: "A change of a tenant's payment status (or of its status by suspension), with its cause." })
export class PaymentChange {
  @Field(() => Int) tenantId!: number;
  @Field({ description: 'paymentStatus or status' }) field!: string;
  @Field() from!: string;
  @Field() to!: string;
  @Field() cause!: string;
  @Field(() => DateTime) at!: string;
}

@ObjectType({ description: 'A reconciliation run: every tenant (or one) read from its gateway by the reconciler process.' })
export class PaymentReconciliation {
  @Field() id!: string;
  @Field(() => Int, { nullable: true, description: 'null: every tenant with a gateway' }) tenantId!: number | null;
  @Field({ description: 'period (the daily run) or operator' }) trigger!: string;
  @Field({ description: 'requested, running or done' }) status!: string;
  @Field(() => Int) checked!: number;
  @Field(() => Int, { description: 'Tenants whose status the reading changed (a lost webhook)' }) repaired!: number;
  @Field(() => Int, { description: 'Tenants whose gateway could not be read' }) failed!: number;
  @Field(() => DateTime) requestedAt!: string;
  @Field(() => DateTime, { nullable: true }) finishedAt!: string | null;
}
