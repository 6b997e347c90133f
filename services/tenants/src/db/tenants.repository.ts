import { ClaimStore } from '@convo/kit/claims';
import { anyOf, nextSequence } from '@convo/kit/mongo';
import type { Connection } from 'mongoose';
import { countByTenant } from './count-by-tenant';
import type { CustomerClaimDoc, IdentityClaimDoc, Models, PlanDoc, SeedClaimDoc, TenantDoc, UserDoc } from './models';

export type SequenceKind = 'tenant' | 'user' | 'plan' | 'channel';

/** Literal text inside a regular expression: a name filter never becomes a pattern. */
const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface TenantFilter {
  status?: TenantDoc['status'];
  name?: string;
}

/** Tenants, their users and plans, and the claims that keep identities and gateway customers unique. */
export class TenantsRepository {
  private readonly seeds: ClaimStore<SeedClaimDoc>;
  private readonly identities: ClaimStore<IdentityClaimDoc>;
  private readonly customers: ClaimStore<CustomerClaimDoc>;

  constructor(
    private readonly conn: Connection,
    private readonly models: Models,
  ) {
    this.seeds = new ClaimStore(models.SeedClaim);
    this.identities = new ClaimStore(models.IdentityClaim);
    this.customers = new ClaimStore(models.CustomerClaim);
  }

  nextId(kind: SequenceKind): Promise<number> {
    return nextSequence(this.conn, kind);
  }

  // ---- plans

  findPlan(id: number) {
    return this.models.Plan.findById(id).lean<PlanDoc>().exec();
  }

  /** The plans of these ids (a page of tenants names few: plans are a small collection). */
  findPlans(ids: readonly number[]) {
    return this.models.Plan.find({ _id: anyOf(ids) })
      .lean<PlanDoc[]>()
      .exec();
  }

  listPlans() {
    return this.models.Plan.find().sort({ _id: 1 }).lean<PlanDoc[]>().exec();
  }

  async hasPlans(): Promise<boolean> {
    return (await this.models.Plan.findOne().select({ _id: 1 }).lean().exec()) !== null;
  }

  async insertPlan(plan: PlanDoc): Promise<PlanDoc> {
    await this.models.Plan.create(plan);
    return plan;
  }

  claimSeed(name: string): Promise<boolean> {
    return this.seeds.claim({ _id: name, createdAt: new Date() });
  }

  // ---- tenants

  findTenant(id: number) {
    return this.models.Tenant.findById(id).lean<TenantDoc>().exec();
  }

  /** Status is an indexed equality; the name filter is a case-insensitive literal match. */
  private tenantQuery(filter: TenantFilter) {
    return {
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.name ? { name: { $regex: escapeRegex(filter.name), $options: 'i' } } : {}),
    };
  }

  pageTenants(filter: TenantFilter, skip: number, limit: number) {
    return this.models.Tenant.find(this.tenantQuery(filter)).sort({ _id: 1 }).skip(skip).limit(limit).lean<TenantDoc[]>().exec();
  }

  countTenants(filter: TenantFilter): Promise<number> {
    return this.models.Tenant.countDocuments(this.tenantQuery(filter)).exec();
  }

  /**
   * Tenants with a payment gateway (or the one given), gateway by gateway and by id: what
   * reconciliation reads. One equality per gateway, so the index (paymentGateway, _id) serves it.
   */
  async *tenantsWithGateway(tenantId = 0): AsyncIterable<TenantDoc> {
    if (tenantId) {
      const t = await this.findTenant(tenantId);
      if (t) yield t;
      return;
    }
    for (const paymentGateway of ['gateway_a', 'gateway_b', 'gateway_c', 'gateway_d']) {
      // A batch at a time (the reconciliation walks them slowly, paced per gateway).
      yield* this.models.Tenant.find({ paymentGateway }).sort({ _id: 1 }).batchSize(500).lean<TenantDoc>().cursor();
    }
  }

  async insertTenant(tenant: TenantDoc): Promise<void> {
    await this.models.Tenant.create(tenant);
  }

  async deleteTenant(id: number): Promise<void> {
    await this.models.Tenant.deleteOne({ _id: id }).exec();
  }

  /** Sets the given fields and answers the stored tenant. */
  updateTenant(id: number, set: Record<string, unknown>) {
    return this.models.Tenant.findByIdAndUpdate(id, { $set: set }, { returnDocument: 'after' }).lean<TenantDoc>().exec();
  }

  // ---- identity claims

  claimIdentity(key: string, tenantId: number): Promise<boolean> {
    return this.identities.claim({ _id: key, tenantId });
  }

  async releaseIdentity(key: string): Promise<void> {
    await this.identities.release(key);
  }

  async tenantIdByIdentity(key: string): Promise<number | undefined> {
    return (await this.identities.find(key))?.tenantId;
  }

  // ---- payment gateway customers and events

  claimCustomer(key: string, tenantId: number): Promise<boolean> {
    return this.customers.claim({ _id: key, tenantId });
  }

  async tenantIdByCustomer(key: string): Promise<number | undefined> {
    return (await this.customers.find(key))?.tenantId;
  }

  /** Releases a customer claim only if this tenant holds it. */
  async releaseCustomer(key: string, tenantId: number): Promise<void> {
    await this.customers.release(key, { tenantId });
  }

  // ---- users

  findUserByEmail(email: string) {
    return this.models.User.findOne({ email }).lean<UserDoc>().exec();
  }

  findUser(tenantId: number, id: number) {
    return this.models.User.findOne({ _id: id, tenantId }).lean<UserDoc>().exec();
  }

  async insertUser(user: UserDoc): Promise<void> {
    await this.models.User.create(user);
  }

  /** One page of a tenant's users by name; `search` is plain text in the name or e-mail. */
  pageUsers(tenantId: number, search: string, skip: number, limit: number) {
    return this.models.User.find(userFilter(tenantId, search)).sort({ name: 1, _id: 1 }).skip(skip).limit(limit).lean<UserDoc[]>().exec();
  }

  countUsers(tenantId: number, search: string) {
    return this.models.User.countDocuments(userFilter(tenantId, search)).exec();
  }

  /** The users of these tenants by tenant, then name: index (tenantId, name, _id). At most `max`. */
  firstUsersOf(tenantIds: readonly number[], max: number) {
    return this.models.User.find({ tenantId: anyOf(tenantIds) })
      .sort({ tenantId: 1, name: 1, _id: 1 })
      .limit(max)
      .lean<UserDoc[]>()
      .exec();
  }

  /** How many users each of these tenants has (a tenant with none is absent): one index range per tenant. */
  countUsersOf(tenantIds: readonly number[]) {
    return countByTenant(this.models.User, tenantIds);
  }

  findTenantAdmin(tenantId: number) {
    return this.models.User.findOne({ tenantId, profile: 'admin' }).sort({ _id: 1 }).lean<UserDoc>().exec();
  }
}

function userFilter(tenantId: number, search: string) {
  const text = search.trim();
  if (!text) return { tenantId };
  const pattern = { $regex: escapeRegex(text), $options: 'i' };
  return { tenantId, $or: [{ name: pattern }, { email: pattern }] };
}
