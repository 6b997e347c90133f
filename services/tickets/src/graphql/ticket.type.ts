import { Directive, Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';

export enum TicketStatus {
  open = 'open',
  pending = 'pending',
  closed = 'closed',
}
registerEnumType(TicketStatus, { name: 'TicketStatus' });


/**
 * The tenants subgraph owns channels; here only the key is known, with the ticket's tenant, so
 * that the tenants subgraph answers a channel of that tenant or none.
 */
@Directive('@key(fields: "id tenantId", resolvable: false)')
@ObjectType('Channel')
export class ChannelRef {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
}

@ObjectType()
export class Contact {
  @Field(() => Int) id!: number;
  @Field() number!: string;
  @Field() name!: string;
  @Field() email!: string;
}

@Directive('@key(fields: "id")')
@ObjectType()
export class Ticket {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field(() => Int) channelId!: number;
  @Field(() => TicketStatus) status!: TicketStatus;
  @Field(() => Contact) contact!: Contact;
  @Field(() => Int, { nullable: true }) userId?: number;
  @Field(() => Int, { nullable: true }) queueId?: number;
  @Field(() => Int, { nullable: true }) chatFlowId?: number;
  @Field(() => Float, { nullable: true }) value?: number;
  @Field(() => [Int]) tagIds!: number[];
  @Field() paused!: boolean;
  @Field(() => String, { nullable: true }) pauseReason?: string | null;
  @Field(() => DateTime) createdAt!: string;
  @Field(() => DateTime) updatedAt!: string;
  @Field(() => ChannelRef) channel!: ChannelRef;
}
