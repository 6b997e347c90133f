import { firstOfEach } from '@convo/kit/mongo';
import { checkPageSize, conflict, DomainError, Issues, notFound, safeEqual, unauthenticated, validation, type proto } from '@convo/kit';
import { isDuplicateKey } from '@convo/kit/mongo';
import type { PlanDoc, TenantDoc, UserDoc } from '../db/models';
import type { TenantsRepository } from '../db/tenants.repository';
import { isOneOf, PAYMENT_GATEWAYS, PROFILES, TENANT_STATUSES } from './catalog';
import { withCompensation, type Compensation } from './compensation';
import { credentialsVersion, dummyPasswordHash, hashPassword, passwordProblems, verifyPassword } from './passwords';
import { toTenant, toUser } from './records';
import { customerKey, identityKey, planTenantUpdate } from './tenant-update';

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;
/** listUsers answers pages of this many users, as listTickets does. */
export const USERS_PAGE_SIZE = 20;

const emailInUse = () =>
  validation('E-mail already in use', [{ field: 'email', message: 'is already used by another user' }], 'ERR_EMAIL_IN_USE');

function storeIssues(req: proto.tenants.StoreTenantRequest__Output): Issues {
  const issues = new Issues();
  issues.check(isOneOf(TENANT_STATUSES, req.status), 'status', 'must be active or inactive');
  issues.check(req.name.trim().length > 0, 'name', 'is required');
  issues.check(req.maxUsers >= 0, 'maxUsers', 'must be an integer ≥ 0');
  issues.check(req.maxConnections >= 0, 'maxConnections', 'must be an integer ≥ 0');
  issues.check(req.acceptTerms, 'acceptTerms', 'must be true');
  issues.check(/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(req.email), 'email', 'must be an e-mail address');
  const pw = passwordProblems(req.password);
  if (pw) issues.add('password', pw);
  issues.check(req.userName.trim().length > 0, 'userName', 'is required');
  issues.check(isOneOf(PROFILES, req.profile), 'profile', 'must be admin or user');
  if (req.paymentGateway) {
    const gw = req.paymentGateway;
    issues.check(isOneOf(PAYMENT_GATEWAYS, gw), 'paymentGateway', `must be one of ${PAYMENT_GATEWAYS.join(', ')}`);
    issues.check(!!req.gatewayCredentials?.customerId, `${gw}CustomerId`, 'is required with paymentGateway');
    issues.check(!!req.gatewayCredentials?.token, `${gw}Token`, 'is required with paymentGateway');
    if (gw === 'gateway_a') issues.check(req.gatewayAEnabled, 'gateway_a', 'must be "enabled" with gateway_a');
  }
  return issues;
}

/** A new tenant's settings beyond the seed's create fields start empty (nothing restricted). */
function newTenantDoc(id: number, req: proto.tenants.StoreTenantRequest__Output, plan: PlanDoc | null): TenantDoc {
  const now = new Date();
  const gw = req.paymentGateway;
  return {
    _id: id,
    name: req.name.trim(),
    status: req.status as TenantDoc['status'],
    maxUsers: plan?.maxUsers ?? req.maxUsers,
    maxConnections: plan?.maxConnections ?? req.maxConnections,
    identity: req.identity.trim(),
    planId: plan?._id,
    paymentGateway: gw,
    gatewayAEnabled: gw === 'gateway_a' && req.gatewayAEnabled,
    gatewayCredentials: gw ? { [gw]: { customerId: req.gatewayCredentials!.customerId, token: req.gatewayCredentials!.token } } : {},
    paymentStatus: gw ? 'pending' : '',
    supportChatEnabled: false,
    menuVisibility: [],
    allowedChannels: [],
    channelConnectionLimits: {},
    oauthEnabled: false,
    oauthProxyUrl: '',
    webhookProxies: {},
    createdAt: now,
    updatedAt: now,
  };
}

export class TenantsService {
  constructor(
    private readonly repo: TenantsRepository,
    /** Called once a tenant is set inactive, so that its integrations' tokens stop working at once. */
    private readonly onDeactivated: (tenantId: number) => Promise<void> = async () => undefined,
  ) {}

  async storeTenant(req: proto.tenants.StoreTenantRequest__Output) {
    const issues = storeIssues(req);
    issues.throwIfAny('Invalid tenant');
    const plan = req.planId !== undefined ? await this.repo.findPlan(req.planId) : null;
    if (req.planId !== undefined && !plan) {
      throw validation('Unknown plan', [{ field: 'planId', message: `plan ${req.planId} does not exist` }], 'ERR_PLAN_NOT_FOUND');
    }
    const email = req.email.trim().toLowerCase();
    if (await this.repo.findUserByEmail(email)) throw emailInUse();

    const tenant = newTenantDoc(await this.repo.nextId('tenant'), req, plan);
    const user: UserDoc = {
      _id: await this.repo.nextId('user'),
      tenantId: tenant._id,
      name: req.userName.trim(),
      email,
      passwordHash: await hashPassword(req.password),
      profile: req.profile as UserDoc['profile'],
      createdAt: tenant.createdAt,
    };
    await withCompensation(async (undo) => {
      await this.claimTenantKeys(tenant, undo);
      await this.repo.insertTenant(tenant);
      undo.add(() => this.repo.deleteTenant(tenant._id));
      await this.repo.insertUser(user).catch((err: unknown) => {
        throw isDuplicateKey(err) ? emailInUse() : err;
      });
    });
    return { tenant: toTenant(tenant), adminUser: toUser(user) };
  }

  /** The identity and the gateway customer are each one tenant's; claimed before anything is written. */
  private async claimTenantKeys(tenant: TenantDoc, undo: Compensation): Promise<void> {
    const key = identityKey(tenant.identity);
    if (key) {
      if (!(await this.repo.claimIdentity(key, tenant._id))) {
        throw conflict('ERR_IDENTITY_IN_USE', 'Another tenant already has this identity');
      }
      undo.add(() => this.repo.releaseIdentity(key));
    }
    const gw = tenant.paymentGateway;
    if (gw) await this.claimCustomers([customerKey(gw, tenant.gatewayCredentials[gw].customerId)], tenant._id, undo);
  }

  private async claimCustomers(keys: string[], tenantId: number, undo: Compensation): Promise<void> {
    for (const key of keys) {
      if (!(await this.repo.claimCustomer(key, tenantId))) {
        const [gateway, customerId] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
        throw conflict('ERR_GATEWAY_CUSTOMER_IN_USE', `Another tenant already uses the ${gateway} customer ${customerId}`);
      }
      undo.add(() => this.repo.releaseCustomer(key, tenantId));
    }
  }

  async showTenant(id: number) {
    const tenant = await this.findTenant(id);
    if (!tenant) throw notFound('tenant');
    return tenant;
  }

  /** A tenant by id, or null (GraphQL answers an absent tenant as null). */
  async findTenant(id: number): Promise<proto.tenants.Tenant | null> {
    const tenant = await this.repo.findTenant(id);
    return tenant ? toTenant(tenant) : null;
  }

  /** Tenants in id order from `offset` (at most `max` at once), optionally by name; the dashboard's paging. */
  async tenantsFrom(offset: number, first: number, max: number, name?: string, field = 'first'): Promise<proto.tenants.Tenant[]> {
    checkPageSize(first, max, field);
    return (await this.repo.pageTenants({ name: name?.trim() || undefined }, offset, first)).map(toTenant);
  }

  countTenants(name?: string): Promise<number> {
    return this.repo.countTenants({ name: name?.trim() || undefined });
  }

  /** The first `limit` users of each of these tenants by name, one query for all unless one has more (firstOfEach). */
  async firstUsersOf(tenantIds: readonly number[], limit: number): Promise<Map<number, proto.tenants.User[]>> {
    const users = await firstOfEach(
      tenantIds,
      limit,
      (u: UserDoc) => u.tenantId,
      (ids, max) => this.repo.firstUsersOf(ids, max),
    );
    return new Map([...users].map(([tenantId, docs]) => [tenantId, docs.map(toUser)]));
  }

  async listTenants(req: proto.tenants.ListTenantsRequest__Output) {
    const page = req.page || 1;
    const limit = req.limit || LIST_DEFAULT_LIMIT;
    const issues = new Issues();
    issues.check(page >= 1, 'page', 'must be an integer ≥ 1');
    issues.check(limit >= 1 && limit <= LIST_MAX_LIMIT, 'limit', `must be an integer from 1 to ${LIST_MAX_LIMIT}`);
    issues.check(!req.status || isOneOf(TENANT_STATUSES, req.status), 'status', 'must be active or inactive');
    issues.throwIfAny('Invalid listing options');
    const filter = { status: (req.status || undefined) as TenantDoc['status'] | undefined, name: req.name.trim() || undefined };
    const [docs, total] = await Promise.all([this.repo.pageTenants(filter, (page - 1) * limit, limit), this.repo.countTenants(filter)]);
    return { tenants: docs.map(toTenant), page, limit, total, hasMore: page * limit < total };
  }

  /**
   * A tenant administrator's sign-in. Unknown e-mail, wrong password and a non-admin user answer
   * the same error after the same work (a password hash is computed in every case, against a dummy
   * hash when there is no administrator's), so neither the answer nor its time tells which e-mails exist.
   */
  async authenticateAdmin(email: string, password: string): Promise<proto.tenants.User> {
    const user = await this.repo.findUserByEmail(email.trim().toLowerCase());
    const candidate = user?.passwordHash && user.profile === 'admin' ? user : undefined;
    const matches = await verifyPassword(password, candidate?.passwordHash ?? (await dummyPasswordHash()));
    if (!candidate || !matches) throw unauthenticated('Wrong e-mail or password');
    const tenant = await this.repo.findTenant(candidate.tenantId);
    if (!tenant) throw unauthenticated('Wrong e-mail or password');
    if (tenant.status !== 'active') throw new DomainError('forbidden', 'ERR_TENANT_INACTIVE', `Tenant ${tenant._id} is inactive`);
    return { ...toUser(candidate), credentialsVersion: credentialsVersion(candidate.passwordHash) };
  }

  /**
   * Whether a tenant administrator's session still stands: its user is there, still an
   * administrator of that tenant, with the password it signed in with, and the tenant is active.
   */
  async checkAdminSession(tenantId: number, userId: number, version: string): Promise<Record<string, never>> {
    const [user, tenant] = await Promise.all([this.repo.findUser(tenantId, userId), this.repo.findTenant(tenantId)]);
    const same = user?.passwordHash && user.profile === 'admin' && version && safeEqual(credentialsVersion(user.passwordHash), version);
    if (!tenant || !same) throw unauthenticated('Session ended: sign in again');
    if (tenant.status !== 'active') throw new DomainError('forbidden', 'ERR_TENANT_INACTIVE', `Tenant ${tenant._id} is inactive`);
    return {};
  }

  /** listUsers of the external API: one page of the tenant's users by name. */
  async listUsers(req: proto.tenants.ListUsersRequest__Output): Promise<proto.tenants.UserPage> {
    const page = Math.max(1, req.page || 1);
    const [users, count] = await Promise.all([
      this.repo.pageUsers(req.tenantId, req.search, (page - 1) * USERS_PAGE_SIZE, USERS_PAGE_SIZE),
      this.repo.countUsers(req.tenantId, req.search),
    ]);
    return { users: users.map(toUser), count, hasMore: page * USERS_PAGE_SIZE < count, page, pageSize: USERS_PAGE_SIZE };
  }

  async getUser(tenantId: number, userId: number) {
    const user = await this.repo.findUser(tenantId, userId);
    if (!user) throw notFound('user', `User ${userId} is not a user of this tenant`);
    return toUser(user);
  }

  async updateTenant(req: proto.tenants.UpdateTenantRequest__Output) {
    const key = identityKey(req.identity);
    if (!key) throw validation('Invalid tenant update', [{ field: 'identity', message: 'is required' }]);
    const tenantId = await this.repo.tenantIdByIdentity(key);
    const tenant = tenantId === undefined ? null : await this.repo.findTenant(tenantId);
    if (!tenant) throw notFound('tenant', 'No tenant has this identity');
    return this.applyUpdate(tenant, req);
  }

  /** The dashboard's updateTenant: the same rules, the tenant found by its id. */
  async updateTenantById(id: number, req: proto.tenants.UpdateTenantRequest__Output) {
    const tenant = await this.repo.findTenant(id);
    if (!tenant) throw notFound('tenant');
    return this.applyUpdate(tenant, req);
  }

  private async applyUpdate(tenant: TenantDoc, req: proto.tenants.UpdateTenantRequest__Output) {
    const { changes, issues } = planTenantUpdate(tenant, req);
    issues.throwIfAny('Invalid tenant update');
    const updated = await withCompensation(async (undo) => {
      await this.claimCustomers(changes.claimCustomers, tenant._id, undo);
      return this.repo.updateTenant(tenant._id, changes.set);
    });
    // Released only once the tenant no longer points at them.
    await Promise.all(changes.releaseCustomers.map((k) => this.repo.releaseCustomer(k, tenant._id)));
    if (!updated) throw notFound('tenant');
    if (tenant.status !== 'inactive' && updated.status === 'inactive') await this.onDeactivated(tenant._id);
    return toTenant(updated);
  }
}
