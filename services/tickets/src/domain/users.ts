import { TtlCache, type ServiceClient } from '@convo/kit';

/** Whether a user id names a user of a tenant; throws the tenants service's 404 ERR_USER_NOT_FOUND otherwise. */
export interface TenantUsers {
  requireUser(tenantId: number, userId: number): Promise<void>;
}

/** How long a user found stays known here: a removed user is refused again within this time. */
export const USER_CACHE_MS = 5_000;

/**
 * A `userId` a caller names (assignment, a new ticket's user, a note's author) must be a user of
 * the ticket's own tenant, whatever entry point asked (REST, GraphQL, another service). Users are
 * the tenants service's data: it is asked over gRPC, with the tenant, and a user it found is
 * remembered for a few seconds, so that repeated assignments to one agent cost no round trip.
 * Refusals are not remembered (a user created a moment later is found at once).
 */
export class TenantUsersOverGrpc implements TenantUsers {
  private readonly known: TtlCache<string, true>;

  constructor(
    private readonly tenants: Pick<ServiceClient<'tenants'>, 'GetUser'>,
    ttlMs = USER_CACHE_MS,
  ) {
    this.known = new TtlCache(ttlMs, 10_000, 'user');
  }

  async requireUser(tenantId: number, userId: number): Promise<void> {
    await this.known.getOrLoad(`${tenantId}:${userId}`, async () => {
      await this.tenants.GetUser({ tenantId, userId });
      return true as const;
    });
  }
}
