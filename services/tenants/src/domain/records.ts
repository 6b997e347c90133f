import type { proto } from '@convo/kit';
import type { ApiIntegrationDoc, ChannelDoc, TenantDoc, UserDoc } from '../db/models';

const iso = (d?: Date) => (d ? new Date(d).toISOString() : '');

/**
 * A secret as it may be shown: `****` and its last four characters, or only `****` when it is
 * short enough that four characters would give too much of it away; empty when unset.
 */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  return secret.length >= 12 ? `****${secret.slice(-4)}` : '****';
}

/** Gateway tokens and proxy secrets leave the service masked; nobody reads them back in clear. */
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
    supportChatEnabled: t.supportChatEnabled ?? false,
    menuVisibility: t.menuVisibility ?? [],
    allowedChannels: t.allowedChannels ?? [],
    channelConnectionLimits: t.channelConnectionLimits ?? {},
    oauthEnabled: t.oauthEnabled ?? false,
    oauthProxyUrl: t.oauthProxyUrl ?? '',
    gatewayAccounts: Object.entries(t.gatewayCredentials ?? {}).map(([gateway, acc]) => ({
      gateway,
      customerId: acc.customerId,
      tokenHint: maskSecret(acc.token),
    })),
    webhookProxies: Object.entries(t.webhookProxies ?? {}).map(([channel, p]) => ({
      channel,
      url: p.url,
      secretHint: maskSecret(p.secret),
    })),
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

export type { ChannelDoc };

/** The whole channel, provider tokens included: callers (messaging) need them to send. */
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
    emailAddress: c.emailAddress ?? '',
    webhookSecret: c.webhookSecret ?? '',
    marketingMessagesApi: c.marketingMessagesApi === true,
    ...(typeof c.sendIntervalMs === 'number' ? { sendIntervalMs: c.sendIntervalMs } : {}),
    // The previous secret only while it still signs.
    ...(c.webhookSecretPrevious && c.webhookSecretPreviousUntil && c.webhookSecretPreviousUntil > new Date()
      ? { webhookSecretPrevious: c.webhookSecretPrevious, webhookSecretPreviousUntil: iso(c.webhookSecretPreviousUntil) }
      : {}),
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
  };
}

export const toApi = (a: ApiIntegrationDoc, authToken = ''): proto.tenants.ApiIntegration => ({
  apiId: a._id,
  name: a.name,
  sessionId: a.sessionId,
  urlServiceStatus: a.urlServiceStatus,
  urlMessageStatus: a.urlMessageStatus,
  userId: a.userId,
  tenant: a.tenantId,
  authToken,
  createdAt: iso(a.createdAt),
});
