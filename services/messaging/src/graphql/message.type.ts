import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';
import type { MessageStatus } from '../domain/inspection.service';
import { MessageDirectionEnum, MessageStatusEnum } from './enums';

@ObjectType({ description: "What Meta's statuses reported of a waba message's price (their `pricing`)" })
export class MessagePricing {
  @Field({ description: 'Whether Meta charges the message' }) billable!: boolean;
  @Field({ description: 'Meta\'s pricing model: "PMP" (per-message pricing, since July 2025)' }) pricingModel!: string;
  @Field({ description: 'What the message is charged as: marketing, utility, authentication, service…' }) category!: string;
}

@ObjectType()
export class MessageReaction {
  @Field() emoji!: string;
  @Field({ description: 'The business reacted (false: the contact)' }) fromMe!: boolean;
  @Field(() => DateTime) at!: string;
}

@ObjectType()
export class MessageEdit {
  @Field() body!: string;
  @Field(() => DateTime, { description: 'When this text was written' }) at!: string;
}

@Directive('@key(fields: "id")')
@ObjectType()
export class Message {
  @Field() id!: string;
  @Field(() => Int) ticketId!: number;
  @Field(() => Int) channelId!: number;
  @Field(() => MessageDirectionEnum) direction!: 'in' | 'out';
  @Field() body!: string;
  @Field(() => MessageStatusEnum) status!: MessageStatus;
  @Field() providerMessageId!: string;
  @Field() error!: string;
  @Field({
    description:
      'Outgoing on a waba channel: the way it left, "official" (Cloud API) or "linked" (coexistence); empty until sent and on other kinds',
  })
  via!: string;
  @Field(() => MessagePricing, {
    nullable: true,
    description: 'Outgoing on waba: the price Meta reported in its statuses; null until one did, and on other kinds',
  })
  pricing!: MessagePricing | null;
  @Field(() => [MessageReaction], { description: 'Reactions received, one per side (the contact, the business)' })
  reactions!: MessageReaction[];
  @Field({ description: 'The provider reported an edit: body is the latest text' })
  edited!: boolean;
  @Field(() => [MessageEdit], { description: 'The earlier texts of an edited message, oldest first' })
  editHistory!: MessageEdit[];
  @Field({ description: 'Deleted for everyone at the provider; its content is kept' })
  deleted!: boolean;
  @Field(() => DateTime) createdAt!: string;
}

/** The tickets subgraph owns tickets; this subgraph adds their messages (read by tenant and ticket). */
@Directive('@key(fields: "id")')
@ObjectType('Ticket')
export class TicketMessages {
  @Field(() => Int) id!: number;
  @Directive('@external')
  @Field(() => Int)
  tenantId!: number;
}

@ObjectType()
export class MessagePageInfo {
  @Field() hasNextPage!: boolean;
  @Field(() => String, { nullable: true }) endCursor!: string | null;
}

@ObjectType({ description: "A page of a ticket's messages, oldest first." })
export class MessageConnection {
  @Field(() => [Message]) nodes!: Message[];
  @Field(() => MessagePageInfo) pageInfo!: MessagePageInfo;
  @Field(() => Int) totalCount!: number;
}
