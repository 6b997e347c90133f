import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { type ServiceSpec } from '@convo/kit/service';
import { TicketsRepository } from './db/tickets.repository';
import { CatalogService } from './domain/catalog.service';
import { ContactsService } from './domain/contacts.service';
import { EvaluationService } from './domain/evaluation.service';
import { NotesService } from './domain/notes.service';
import { TicketsService } from './domain/tickets.service';
import { ticketsHandlers } from './grpc/tickets.handlers';
import { CatalogResolver } from './graphql/catalog.resolver';
import { DashboardResolver } from './graphql/dashboard.resolver';
import { ticketReference } from './graphql/ticket.reference';
import { TicketResolver } from './graphql/ticket.resolver';
import { ChannelRef } from './graphql/ticket.type';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [TicketResolver, CatalogResolver, DashboardResolver],
  orphanedTypes: [ChannelRef],
};

export async function buildTicketsSubgraph(repo: TicketsRepository, catalog: CatalogService, tickets = new TicketsService(repo, catalog)) {
  const resolvers = new Map<unknown, unknown>([
    [TicketResolver, new TicketResolver(repo)],
    [CatalogResolver, new CatalogResolver(catalog)],
    [DashboardResolver, new DashboardResolver(repo, tickets)],
  ]);
  return buildSubgraph({
    ...subgraphTypes,
    container: { get: (cls) => resolvers.get(cls) },
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
    const catalog = new CatalogService(repo);
    const tickets = new TicketsService(repo, catalog);
    const { schema } = await buildTicketsSubgraph(repo, catalog, tickets);
    const handlers = ticketsHandlers({
      tickets,
      notes: new NotesService(repo),
      evaluations: new EvaluationService(repo),
      contacts: new ContactsService(repo, catalog),
      catalog,
    });
    return { handlers, schema };
  },
};
