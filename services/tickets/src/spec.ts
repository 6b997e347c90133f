import { createClient, type EnvReader } from '@convo/kit';
import { buildSubgraph, type SubgraphTypes } from '@convo/kit/graphql/subgraph';
import { type ServiceSpec } from '@convo/kit/service';
import { TicketsDatabase } from './db/repositories';
import { CatalogService } from './domain/catalog.service';
import { ContactsService } from './domain/contacts.service';
import { EvaluationService } from './domain/evaluation.service';
import { NotesService } from './domain/notes.service';
import { PausesService } from './domain/pauses.service';
import { TICKET_SNAPSHOT_MS, TicketCopies } from './domain/ticket-copies';
import { TicketOpening } from './domain/ticket-opening';
import { TicketsService } from './domain/tickets.service';
import { TenantUsersOverGrpc, USER_CACHE_MS, type TenantUsers } from './domain/users';
import { ticketsHandlers } from './grpc/tickets.handlers';
import { CatalogResolver } from './graphql/catalog.resolver';
import { DashboardResolver } from './graphql/dashboard.resolver';
import { ticketReference } from './graphql/ticket.reference';
import { TicketResolver } from './graphql/ticket.resolver';
import { ChannelRef } from './graphql/ticket.type';

export { TICKET_SNAPSHOT_MS } from './domain/ticket-copies';

export const subgraphTypes: SubgraphTypes = {
  resolvers: [TicketResolver, CatalogResolver, DashboardResolver],
  orphanedTypes: [ChannelRef],
};

export async function buildTicketsSubgraph(tickets: TicketsService, notes: NotesService, catalog: CatalogService) {
  const resolvers = new Map<unknown, unknown>([
    [TicketResolver, new TicketResolver(tickets, notes)],
    [CatalogResolver, new CatalogResolver(catalog)],
    [DashboardResolver, new DashboardResolver(tickets)],
  ]);
  return buildSubgraph({
    ...subgraphTypes,
    container: { get: (cls) => resolvers.get(cls) },
    references: { Ticket: ticketReference(tickets) },
  });
}

export interface TicketsConfig {
  /** The tenants service: users named on tickets and notes are its data. */
  tenantsAddr: string;
  /** How long a user found there is remembered (USER_CACHE_MS). */
  userCacheMs: number;
  /** How long messaging may accept sends on a ticket it read (TICKET_SNAPSHOT_MS); a close waits this long. */
  snapshotMs: number;
}

export const readTicketsConfig = (env: EnvReader): TicketsConfig => ({
  tenantsAddr: env.str('TENANTS_GRPC_ADDR', '127.0.0.1:50055'),
  userCacheMs: env.int('USER_CACHE_MS', USER_CACHE_MS),
  snapshotMs: env.int('TICKET_SNAPSHOT_MS', TICKET_SNAPSHOT_MS),
});

export const ticketsService: ServiceSpec<'tickets', TicketsConfig> = {
  name: 'tickets',
  grpc: 'tickets',
  database: 'convo_tickets',
  ports: { grpc: 50051, graphql: 4001 },
  config: readTicketsConfig,
  async create({ db, log, config }) {
    const repo = new TicketsDatabase(db);
    const { listingGap } = await repo.init();
    if (listingGap)
      log.warn({ gap: listingGap }, 'tickets and listing rows differ by a few at start: left to the next write of each ticket');
    const catalog = new CatalogService(repo);
    const users: TenantUsers = new TenantUsersOverGrpc(createClient('tenants', config.tenantsAddr), config.userCacheMs);
    const copies = new TicketCopies(config.snapshotMs);
    const tickets = new TicketsService(repo, catalog, users, copies);
    const opening = new TicketOpening(repo, catalog, users);
    const notes = new NotesService(repo, users);
    const { schema } = await buildTicketsSubgraph(tickets, notes, catalog);
    const handlers = ticketsHandlers({
      tickets,
      opening,
      copies,
      notes,
      pauses: new PausesService(repo),
      evaluations: new EvaluationService(repo),
      contacts: new ContactsService(repo, catalog, users),
      catalog,
    });
    return { handlers, schema };
  },
};
