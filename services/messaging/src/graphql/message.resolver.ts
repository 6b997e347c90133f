import { checkPageSize, offsetCursor, readOffsetCursor } from '@convo/kit';
import { Arg, Directive, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import { Message, MessageConnection, TicketMessages } from './message.type';

export const toGraphMessage = (m: MessageDoc): Message => ({
  ...m,
  id: m._id,
  providerMessageId: m.providerMessageId ?? '',
  error: m.error ?? '',
  via: m.via ?? '',
  createdAt: m.createdAt.toISOString(),
});

@Resolver(() => Message)
export class MessageResolver {
  constructor(private readonly repo: MessagesRepository) {}

  @Query(() => Message, { nullable: true })
  async message(@Arg('tenantId', () => Int) tenantId: number, @Arg('id') id: string): Promise<Message | null> {
    const doc = await this.repo.findById(tenantId, id);
    return doc ? toGraphMessage(doc) : null;
  }
}

@Resolver(() => TicketMessages)
export class TicketMessagesResolver {
  constructor(private readonly repo: MessagesRepository) {}

  // The tenant comes from the tickets subgraph: the messages' index starts with it.
  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => [Message], { description: 'Messages of the ticket, oldest first (at most 200).' })
  async messages(@Root() ticket: TicketMessages): Promise<Message[]> {
    return (await this.repo.listByTicket(ticket.tenantId, ticket.id, 200)).map(toGraphMessage);
  }

  @Directive('@requires(fields: "tenantId")')
  @FieldResolver(() => MessageConnection, { description: "The ticket's conversation as a connection, oldest first (first ≤ 100)." })
  async messagePage(
    @Root() ticket: TicketMessages,
    @Arg('first', () => Int, { defaultValue: 50 }) first: number,
    @Arg('after', () => String, { nullable: true }) after: string | null,
  ): Promise<MessageConnection> {
    checkPageSize(first, 100);
    const offset = readOffsetCursor(after);
    const [docs, totalCount] = await Promise.all([
      this.repo.pageByTicket(ticket.tenantId, ticket.id, offset, first),
      this.repo.countByTicket(ticket.tenantId, ticket.id),
    ]);
    const next = offset + docs.length;
    return {
      nodes: docs.map(toGraphMessage),
      totalCount,
      pageInfo: { hasNextPage: next < totalCount, endCursor: docs.length ? offsetCursor(next) : after ?? null },
    };
  }
}
