import { Arg, Directive, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { MessagesRepository } from '../db/messages.repository';
import type { MessageDoc } from '../db/models';
import { Message, TicketMessages } from './message.type';

export const toGraphMessage = (m: MessageDoc): Message => ({
  ...m,
  id: m._id,
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
}
