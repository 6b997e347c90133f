import { forbidden, isDuplicateKey, notFound, unauthenticated, validation, type FieldIssue, type proto } from '@convo/kit';
import type { TenantsRepository } from '../db/tenants.repository';
import type { ChannelDoc, TenantDoc, UserDoc } from '../db/models';
import { hashPassword, passwordProblems } from './passwords';
import { newApiId, newApiToken, sha256 } from './tokens';

export const TENANT_STATUSES = ['active', 'inactive'] as const;
export const PROFILES = ['admin', 'user'] as const;
export const PAYMENT_GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c', 'gateway_d'] as const;
export const CHANNEL_STATUSES = ['DISCONNECTED', 'CONNECTED'] as const;
export const ENGINE_TYPES = ['whatsapp', 'engine_a', 'engine_b', 'engine_c', 'engine_d', 'engine_e', 'engine_f', 'engine_g', 'engine_h'] as const;
/** The seed's session types, the social channels (CONVENTIONS.md) and the other channel kinds of the product. */
export const CHANNEL_TYPES = [...ENGINE_TYPES, 'waba', 'social_a', 'social_b', 'webchat', 'marketplace', 'webmail'] as const;

const oneOf = (values: readonly string[], v: string) => values.includes(v);

function check(issues: FieldIssue[], ok: boolean, field: string, message: string) {
  if (!ok) issues.push({ field, message });
}

export class TenantsService {
  constructor(private readonly repo: TenantsRepository) {}

  async storeTenant(req: proto.tenants.StoreTenantRequest__Output) {
    const issues: FieldIssue[] = [];
    check(issues, oneOf(TENANT_STATUSES, req.status), 'status', 'must be active or inactive');
    check(issues, req.name.trim().length > 0, 'name', 'is required');
    check(issues, req.acceptTerms, 'acceptTerms', 'must be true');
    check(issues, /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(req.email), 'email', 'must be an e-mail address');
    const pw = passwordProblems(req.password);
    if (pw) issues.push({ field: 'password', message: pw });
    check(issues, req.userName.trim().length > 0, 'userName', 'is required');
    check(issues, oneOf(PROFILES, req.profile), 'profile', 'must be admin or user');
    if (req.paymentGateway) {
      const gw = req.paymentGateway;
      check(issues, oneOf(PAYMENT_GATEWAYS, gw), 'paymentGateway', `must be one of ${PAYMENT_GATEWAYS.join(', ')}`);
      check(issues, !!req.gatewayCredentials?.customerId, `${gw}CustomerId`, 'is required with paymentGateway');
      check(issues, !!req.gatewayCredentials?.token, `${gw}Token`, 'is required with paymentGateway');
      if (gw === 'gateway_a') check(issues, req.gatewayAEnabled, 'gateway_a', 'must be "enabled" with gateway_a');
    }
    if (issues.length) throw validation('Invalid tenant', issues);

    let maxUsers = req.maxUsers;
    let maxConnections = req.maxConnections;
    if (req.planId !== undefined) {
      const plan = await this.repo.findPlan(req.planId);
      if (!plan) throw validation('Unknown plan', [{ field: 'planId', message: `plan ${req.planId} does not exist` }], 'ERR_PLAN_NOT_FOUND');
      maxUsers = plan.maxUsers;
      maxConnections = plan.maxConnections;
    }
    const email = req.email.trim().toLowerCase();
    if (await this.repo.findUserByEmail(email)) {
      throw validation('E-mail already in use', [{ field: 'email', message: 'is already used by another user' }], 'ERR_EMAIL_IN_USE');
    }

    const now = new Date();
    const tenant: TenantDoc = {
      _id: await this.repo.nextId('tenant'),
      name: req.name.trim(),
      status: req.status as TenantDoc['status'],
      maxUsers,
      maxConnections,
      identity: req.identity,
      planId: req.planId,
      paymentGateway: req.paymentGateway,
      gatewayAEnabled: req.paymentGateway === 'gateway_a' && req.gatewayAEnabled,
      gatewayCredentials: req.paymentGateway
        ? { [req.paymentGateway]: { customerId: req.gatewayCredentials!.customerId, token: req.gatewayCredentials!.token } }
        : {},
      paymentStatus: req.paymentGateway ? 'pending' : '',
      createdAt: now,
      updatedAt: now,
    };
    const user: UserDoc = {
      _id: await this.repo.nextId('user'),
      tenantId: tenant._id,
      name: req.userName.trim(),
      email,
      passwordHash: await hashPassword(req.password),
      profile: req.profile as UserDoc['profile'],
      createdAt: now,
    };
    await this.repo.insertTenant(tenant);
    try {
      await this.repo.insertUser(user);
    } catch (err) {
      // No multi-document transactions on FerretDB: undo the tenant so nothing is half-written.
      await this.repo.deleteTenant(tenant._id);
      if (isDuplicateKey(err)) {
        throw validation('E-mail already in use', [{ field: 'email', message: 'is already used by another user' }], 'ERR_EMAIL_IN_USE');
      }
      throw err;
    }
    return { tenant: toTenant(tenant), adminUser: toUser(user) };
  }

  async showTenant(id: number) {
    const tenant = await this.repo.findTenant(id);
    if (!tenant) throw notFound('tenant');
    return toTenant(tenant);
  }

  async createSession(req: proto.tenants.CreateSessionRequest__Output) {
    const issues: FieldIssue[] = [];
    check(issues, req.name.trim().length > 0, 'name', 'is required');
    check(issues, oneOf(CHANNEL_TYPES, req.type), 'type', `must be one of ${CHANNEL_TYPES.join(', ')}`);
    check(issues, !req.status || oneOf(CHANNEL_STATUSES, req.status), 'status', 'must be DISCONNECTED or CONNECTED');
    if (req.type === 'waba') {
      check(issues, /^\d+$/.test(req.tokenApi), 'tokenAPI', 'is required for waba and must be digits only');
      check(issues, req.wabaId.length > 0, 'wabaId', 'is required for waba');
      check(issues, req.bmToken.length > 0, 'bmToken', 'is required for waba');
    }
    if (req.type === 'social_a' || req.type === 'social_b') {
      check(issues, req.pageId.length > 0, 'pageId', `is required for ${req.type}`);
      check(issues, req.pageToken.length > 0, 'pageToken', `is required for ${req.type}`);
    }
    if (issues.length) throw validation('Invalid session', issues);

    const tenant = await this.repo.findTenant(req.tenant);
    if (!tenant) throw notFound('tenant');
    const admin = await this.repo.findTenantAdmin(tenant._id);

    const now = new Date();
    const channel: ChannelDoc = {
      _id: await this.repo.nextId('channel'),
      tenantId: tenant._id,
      name: req.name.trim(),
      status: (req.status || 'DISCONNECTED') as ChannelDoc['status'],
      type: req.type,
      tokenAPI: req.tokenApi,
      wabaId: req.wabaId,
      bmToken: req.bmToken,
      hybridMode: 'disabled',
      engineUrl: req.engineUrl,
      engineToken: req.engineToken,
      webhookEnabled: req.webhookEnabled,
      webhookUrl: req.webhookUrl,
      webhookIncoming: req.webhookIncoming,
      pageId: req.pageId,
      pageToken: req.pageToken,
      createdAt: now,
      updatedAt: now,
    };
    const token = newApiToken();
    const api = {
      _id: newApiId(),
      tenantId: tenant._id,
      name: channel.name,
      sessionId: channel._id,
      urlServiceStatus: '',
      urlMessageStatus: '',
      userId: admin?._id ?? 0,
      tokenHash: sha256(token),
      createdAt: now,
    };
    await this.repo.insertChannel(channel);
    try {
      await this.repo.insertApi(api);
    } catch (err) {
      await this.repo.deleteChannel(channel._id);
      throw err;
    }
    return {
      whatsapp: toChannel(channel),
      api: { apiId: api._id, name: api.name, sessionId: api.sessionId, userId: api.userId, tenant: api.tenantId, authToken: token, createdAt: now.toISOString() },
    };
  }

  async getChannel(tenantId: number, channelId: number) {
    const channel = await this.repo.findChannel(tenantId, channelId);
    if (!channel) throw notFound('channel');
    return toChannel(channel);
  }

  /** 401 for a token nobody owns, 403 for a real token used on another integration's path. */
  async resolveApiToken(apiId: string, tokenSha256: string) {
    const api = await this.repo.findApiByTokenHash(tokenSha256);
    if (!api) throw unauthenticated();
    if (api._id !== apiId) throw forbidden('This token belongs to another API integration');
    return { apiId: api._id, tenantId: api.tenantId, sessionId: api.sessionId, userId: api.userId };
  }
}

const iso = (d?: Date) => (d ? new Date(d).toISOString() : '');

export function toTenant(t: TenantDoc): proto.tenants.Tenant {
  return {
    id: t._id,
    name: t.name,
    status: t.status,
    maxUsers: t.maxUsers,
    maxConnections: t.maxConnections,
    identity: t.identity,
    planId: t.planId ?? undefined,
    paymentGateway: t.paymentGateway,
    gatewayAEnabled: t.gatewayAEnabled,
    paymentStatus: t.paymentStatus,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

export const toUser = (u: UserDoc): proto.tenants.User => ({
  id: u._id,
  tenantId: u.tenantId,
  name: u.name,
  email: u.email,
  profile: u.profile,
});

export function toChannel(c: ChannelDoc): proto.tenants.Channel {
  return {
    id: c._id,
    tenantId: c.tenantId,
    name: c.name,
    status: c.status,
    type: c.type,
    tokenApi: c.tokenAPI,
    wabaId: c.wabaId,
    bmToken: c.bmToken,
    hybridMode: c.hybridMode,
    linkedChannelId: c.linkedChannelId ?? undefined,
    engineUrl: c.engineUrl,
    engineToken: c.engineToken,
    webhookEnabled: c.webhookEnabled,
    webhookUrl: c.webhookUrl,
    webhookIncoming: c.webhookIncoming,
    pageId: c.pageId,
    pageToken: c.pageToken,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}
