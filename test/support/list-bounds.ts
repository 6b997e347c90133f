/**
 * Every argument of the GraphQL API that sizes a list (`first`, `limit`) or is a list, with the
 * most its owning service accepts, and an operation that sends it (the platform's token; `t` a
 * tenant, `ticket` one of its tickets). The e2e test sends each one over its maximum (and a size of
 * 0) and expects ERR_VALIDATION from the service; the schema walk fails when the supergraph has
 * such an argument this table does not name, so a new one cannot go unbounded.
 */
export interface ListBound {
  /** `size`: the list's size asked (`first`/`limit`), or the number of items sent. */
  probe: (size: number, ids: { t: number; ticket: number }) => string;
  max: number;
  /** `first`/`limit`: 0 is refused too (never "no limit"); a list argument may be empty. */
  sizes: boolean;
}

const items = (n: number, item: (i: number) => string) => Array.from({ length: n }, (_, i) => item(i)).join(', ');

export const LIST_BOUNDS: Record<string, ListBound> = {
  'Query.tenants.limit': { max: 500, sizes: true, probe: (n) => `{ tenants(limit: ${n}) { id } }` },
  'Query.tenantConnection.first': { max: 100, sizes: true, probe: (n) => `{ tenantConnection(first: ${n}) { totalCount } }` },
  'Query.deliveries.limit': { max: 500, sizes: true, probe: (n) => `{ deliveries(channelId: 1, limit: ${n}) { id } }` },
  'Query.webhookDeliveries.limit': {
    max: 200,
    sizes: true,
    probe: (n, { t }) => `{ webhookDeliveries(tenantId: ${t}, limit: ${n}) { id } }`,
  },
  'Query.paymentWebhooks.limit': { max: 200, sizes: true, probe: (n) => `{ paymentWebhooks(limit: ${n}) { eventId } }` },
  'Query.paymentChanges.limit': { max: 200, sizes: true, probe: (n, { t }) => `{ paymentChanges(tenantId: ${t}, limit: ${n}) { to } }` },
  'Query.tickets.first': { max: 100, sizes: true, probe: (n, { t }) => `{ tickets(tenantId: ${t}, first: ${n}) { totalCount } }` },
  'Query.tickets.statuses': {
    max: 3,
    sizes: false,
    probe: (n, { t }) => `{ tickets(tenantId: ${t}, statuses: [${items(n, (i) => ['open', 'pending', 'closed'][i % 3])}]) { totalCount } }`,
  },
  'Ticket.messagePage.first': {
    max: 100,
    sizes: true,
    probe: (n, { t, ticket }) => `{ ticket(tenantId: ${t}, id: ${ticket}) { messagePage(first: ${n}) { totalCount } } }`,
  },
  'Ticket.latestMessages.last': {
    max: 100,
    sizes: true,
    probe: (n, { t, ticket }) => `{ ticket(tenantId: ${t}, id: ${ticket}) { latestMessages(last: ${n}) { totalCount } } }`,
  },
  'Mutation.addTicketTags.tagIds': {
    max: 50,
    sizes: false,
    probe: (n, { t, ticket }) =>
      `mutation { addTicketTags(tenantId: ${t}, ticketId: ${ticket}, tagIds: [${items(n, (i) => String(900_000 + i))}]) { id } }`,
  },
  'Mutation.createPlan.features': {
    max: 50,
    sizes: false,
    probe: (n) =>
      `mutation { createPlan(name: "bounded", maxUsers: 1, maxConnections: 1, features: [${items(n, (i) => `"f${i}"`)}]) { id } }`,
  },
  'Mutation.createPlan.allowedChannels': {
    max: 50,
    sizes: false,
    probe: (n) =>
      `mutation { createPlan(name: "bounded", maxUsers: 1, maxConnections: 1, allowedChannels: [${items(n, () => 'waba')}]) { id } }`,
  },
};
