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

/** A ticket's contact, with the identities it may have beyond the phone (docs/api/contact-identities.md). */
@ObjectType()
export class Contact {
  @Field(() => Int) id!: number;
  @Field({
    description:
      'The phone number\'s digits (on social channels the platform user id); "" when the contact has none, known only by its BSUID or LID.',
  })
  number!: string;
  @Field() name!: string;
  @Field() email!: string;
  @Field(() => String, {
    nullable: true,
    description: 'waba: the business-scoped user id Meta gives the contact (CC.<alphanumeric>), when known.',
  })
  bsuid!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'waba: the parent BSUID (CC.ENT.<alphanumeric>) where the business has one, when known.',
  })
  parentBsuid!: string | null;
  @Field(() => String, { nullable: true, description: "Unofficial engines: the contact's LID (<digits>@lid), when known." })
  lid!: string | null;
  @Field(() => String, { nullable: true, description: "waba: the contact's WhatsApp username, for display only (it changes), when known." })
  username!: string | null;
}

@ObjectType({ description: 'The satisfaction survey sent on a ticket (sendEvaluation) and its answer.' })
export class TicketEvaluation {
  @Field(() => DateTime) sentAt!: string;
  @Field(() => String, { nullable: true, description: 'The digit 1 to 5 the contact answered; null until then.' }) answer!: string | null;
  @Field(() => DateTime, { nullable: true }) answeredAt!: string | null;
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
  @Field(() => Int, { nullable: true, description: 'Its kanban column (updateticketinfo kanbanId).' }) kanbanId?: number;
  @Field(() => Int, { nullable: true, description: 'Why it was closed (a reason of the tenant), when one was given.' }) reasonId?: number;
  @Field(() => TicketEvaluation, { nullable: true, description: 'The survey sent on it; null when none was.' })
  evaluation?: TicketEvaluation | null;
  @Field(() => Float, { nullable: true }) value?: number;
  @Field(() => [Int]) tagIds!: number[];
  @Field() paused!: boolean;
  @Field(() => String, { nullable: true }) pauseReason?: string | null;
  @Field(() => DateTime) createdAt!: string;
  @Field(() => DateTime) updatedAt!: string;
  @Field(() => DateTime, {
    nullable: true,
    description:
      'When the ticket was last closed; null while it is open or pending. A reopen (any status but closed) clears it, and closing again sets it anew.',
  })
  closedAt?: string | null;
  @Field(() => ChannelRef) channel!: ChannelRef;
}
