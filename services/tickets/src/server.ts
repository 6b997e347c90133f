import { buildSubgraph, type SubgraphTypes, type ServiceSpec } from '@convo/kit';
import { TicketsRepository } from './db/tickets.repository';
import { TicketsService } from './domain/tickets.service';
import { ticketsHandlers } from './grpc/tickets.handlers';
import { ticketReference } from './graphql/ticket.reference';
import { TicketResolver } from './graphql/ticket.resolver';
import { ChannelRef } from './graphql/ticket.type';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [TicketResolver],
  orphanedTypes: [ChannelRef],
};

export async function buildTicketsSubgraph(repo: TicketsRepository) {
  const resolver = new TicketResolver(repo);
  return buildSubgraph({
    ...subgraphTypes,
    container: { get: () => resolver },
    references: { Ticket: ticketReference(repo) },
  });
}

export const ticketsService: ServiceSpec<'tickets', Record<string, never>> = {
  name: 'tickets',
  grpc: 'tickets',
  database: 'convo_tickets',
  ports: { grpc: 50051, graphql: 4001 },
  config: () => ({}),
  async create({ db }) {
    const repo = new TicketsRepository(db);
    await repo.init();
    const { schema } = await buildTicketsSubgraph(repo);
    return { handlers: ticketsHandlers(new TicketsService(repo)), schema };
  },
};
