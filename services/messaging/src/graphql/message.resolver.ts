import { offsetCursor, readOffsetCursor } from '@convo/kit';
import { Arg, Directive, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import { type InspectionService, type MessageDoc, MAX_MESSAGE_PAGE, TICKET_MESSAGES_LIMIT } from '../domain/inspection.service';
import { Message, MessageConnection, TicketMessages } from './message.type';
import { TenantScoped } from '@convo/kit/graphql/subgraph';

export const toGraphMessage = (m: MessageDoc): Message => ({
  ...m,
  id: m._id,
  providerMessageId: m.providerMessageId ?? '',
  error: m.error ?? '',
  via: m.via ?? '',
  pricing: m.pricing ?? null,
  reactions: (m.reactions ?? []).map((r) => ({ emoji: r.emoji, fromMe: r.fromMe, at: r.at.toISOString() })),
  edited: m.edited ?? false,
  editHistory: (m.editHistory ?? []).map((h) => ({ body: h.body, at: h.at.toISOString() })),
  deleted: m.deleted ?? false,
  createdAt: m.createdAt.toISOString(),
});

@Resolver(() => Message)
export class MessageResolver {
  constructor(private readonly inspection: InspectionService) {}

  @Query(() => Message, { nullable: true })
  @TenantScoped('tenantId')
  async message(@Arg('tenantId', () => Int) tenantId: number, @Arg('id') id: string): Promise<Message | null> {
    const doc = await this.inspection.findMessage(tenantId, id);
    return doc ? toGraphMessage(doc) : null;
  }
}

@Resolver(() => TicketMessages)
export class TicketMessagesResolver {
  constructor(private readonly inspection: InspectionService) {}

  // The tenant comes from the tickets subgraph: the messages' index starts with it.
  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => [Message], { description: `Messages of the ticket, oldest first (at most ${TICKET_MESSAGES_LIMIT}).` })
  async messages(@Root() ticket: TicketMessages): Promise<Message[]> {
    return (await this.inspection.ticketMessages(ticket.tenantId, ticket.id)).map(toGraphMessage);
  }

  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => MessageConnection, {
    description: `The ticket's conversation as a connection, oldest first (first ≤ ${MAX_MESSAGE_PAGE}).`,
  })
  async messagePage(
    @Root() ticket: TicketMessages,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
  ): Promise<MessageConnection> {
    const offset = readOffsetCursor(after);
    const { docs, totalCount } = await this.inspection.ticketMessagePage(ticket.tenantId, ticket.id, offset, first);
    const next = offset + docs.length;
    return {
      nodes: docs.map(toGraphMessage),
      totalCount,
      pageInfo: { hasNextPage: next < totalCount, endCursor: docs.length ? offsetCursor(next) : (after ?? null) },
    };
  }

  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => MessageConnection, {
    description: `The ticket's newest messages (last ≤ ${MAX_MESSAGE_PAGE}), oldest first: the end of a long conversation. totalCount tells how many there are in all; endCursor continues with messagePage(after:) when newer ones arrive.`,
  })
  async latestMessages(
    @Root() ticket: TicketMessages,
    @Arg('last', () => Int, { defaultValue: 50 }) last: number,
  ): Promise<MessageConnection> {
    const { docs, totalCount } = await this.inspection.ticketLatestMessages(ticket.tenantId, ticket.id, last);
    return {
      nodes: docs.map(toGraphMessage),
      totalCount,
      pageInfo: { hasNextPage: false, endCursor: offsetCursor(totalCount) },
    };
  }
}
