import { Issues, type proto } from '@convo/kit';
import type { TenantDoc } from '../db/models';
import {
  ALLOWED_CHANNELS,
  ENABLED_DISABLED,
  isOneOf,
  LIMIT_KEY_ALIASES,
  MENU_VISIBILITY,
  PAYMENT_GATEWAYS,
  TENANT_STATUSES,
  type PaymentGateway,
} from './catalog';
import { checkEnumList, isOptionalUrl } from './validation';

type UpdateRequest = proto.tenants.UpdateTenantRequest__Output;

/** What an update writes: the fields to set and the gateway customers it takes and gives up. */
export interface TenantChanges {
  set: Record<string, unknown>;
  /** `<gateway>:<customerId>` keys to claim before writing. */
  claimCustomers: string[];
  /** Keys this tenant held and no longer uses, released after writing. */
  releaseCustomers: string[];
}

export const customerKey = (gateway: string, customerId: string) => `${gateway}:${customerId}`;

/** CPF/CNPJ are written with or without punctuation; both name the same tenant. */
export const identityKey = (identity: string): string => identity.replace(/[\s./-]/g, '').toUpperCase();

/** Validates an update against the stored tenant and answers the changes; every problem at once. */
export function planTenantUpdate(tenant: TenantDoc, req: UpdateRequest): { changes: TenantChanges; issues: Issues } {
  const issues = new Issues();
  const changes: TenantChanges = { set: { updatedAt: new Date() }, claimCustomers: [], releaseCustomers: [] };
  planPlainFields(req, issues, changes.set);
  planLists(req, issues, changes.set);
  planLimits(req, issues, changes.set);
  planProxies(req, issues, changes.set);
  planPayment(tenant, req, issues, changes);
  return { changes, issues };
}

function planPlainFields(req: UpdateRequest, issues: Issues, set: Record<string, unknown>): void {
  if (req.status !== undefined) {
    issues.check(isOneOf(TENANT_STATUSES, req.status), 'status', 'must be active or inactive');
    set.status = req.status;
    // An operator's choice: a paid event no longer reactivates a tenant suspended for payment.
    set.suspendedByPayment = false;
  }
  for (const field of ['maxUsers', 'maxConnections'] as const) {
    const value = req[field];
    if (value === undefined) continue;
    issues.check(value >= 0, field, 'must be an integer ≥ 0');
    set[field] = value;
  }
  if (req.supportChatEnabled !== undefined) {
    issues.check(isOneOf(ENABLED_DISABLED, req.supportChatEnabled), 'supportChatEnabled', 'must be enabled or disabled');
    set.supportChatEnabled = req.supportChatEnabled === 'enabled';
  }
  if (req.oauthEnabled !== undefined) set.oauthEnabled = req.oauthEnabled;
  if (req.oauthProxyUrl !== undefined) {
    issues.check(isOptionalUrl(req.oauthProxyUrl), 'oauthProxyUrl', 'must be an http(s) URL or empty');
    set.oauthProxyUrl = req.oauthProxyUrl;
  }
}

function planLists(req: UpdateRequest, issues: Issues, set: Record<string, unknown>): void {
  if (req.menuVisibility) {
    checkEnumList(issues, 'menuVisibility', req.menuVisibility.values, MENU_VISIBILITY);
    set.menuVisibility = [...new Set(req.menuVisibility.values)];
  }
  if (req.allowedChannels) {
    checkEnumList(issues, 'allowedChannels', req.allowedChannels.values, ALLOWED_CHANNELS);
    set.allowedChannels = [...new Set(req.allowedChannels.values)];
  }
}

/** The object replaces the stored limits; `waba_oauth` is stored as `waba`, and `waba` wins. */
function planLimits(req: UpdateRequest, issues: Issues, set: Record<string, unknown>): void {
  if (!req.channelConnectionLimits) return;
  const limits: Record<string, number> = {};
  const entries = Object.entries(req.channelConnectionLimits.limits);
  for (const [key, value] of entries) {
    const field = `channelConnectionLimits.${key}`;
    if (!isOneOf(ALLOWED_CHANNELS, key)) issues.add(field, `unknown channel type "${key}"; allowed: ${ALLOWED_CHANNELS.join(', ')}`);
    if (!Number.isInteger(value) || value < 0) issues.add(field, 'must be an integer ≥ 0 (0 = unlimited)');
    const target = LIMIT_KEY_ALIASES[key] ?? key;
    if (target === key || !(target in req.channelConnectionLimits.limits)) limits[target] = value;
  }
  set.channelConnectionLimits = limits;
}

const PROXY_FIELDS = [
  ['social_a', 'socialAWebhookProxyUrl', 'socialAWebhookProxySecret'],
  ['social_b', 'socialBWebhookProxyUrl', 'socialBWebhookProxySecret'],
] as const;

/** An empty secret or URL clears it. */
function planProxies(req: UpdateRequest, issues: Issues, set: Record<string, unknown>): void {
  for (const [channel, urlField, secretField] of PROXY_FIELDS) {
    const url = req[urlField];
    const secret = req[secretField];
    if (url !== undefined) {
      issues.check(isOptionalUrl(url), `${channel}WebhookProxyUrl`, 'must be an http(s) URL or empty');
      set[`webhookProxies.${channel}.url`] = url;
    }
    if (secret !== undefined) set[`webhookProxies.${channel}.secret`] = secret;
  }
}

/**
 * paymentGateway and the `<gateway>` pairs: `none` clears the choice (stored pairs stay, so a
 * switch back needs none); switching to a gateway needs its pair, sent now or stored before;
 * any switch away from gateway_a turns the legacy gateway_a mode off.
 */
function planPayment(tenant: TenantDoc, req: UpdateRequest, issues: Issues, changes: TenantChanges): void {
  const current = tenant.paymentGateway;
  let target = current;
  if (req.paymentGateway !== undefined) {
    if (req.paymentGateway === 'none') target = '';
    else if (isOneOf(PAYMENT_GATEWAYS, req.paymentGateway)) target = req.paymentGateway;
    else issues.add('paymentGateway', `must be one of none, ${PAYMENT_GATEWAYS.join(', ')}`);
  }
  const sentPair = planPairs(tenant, req, target, issues, changes);
  const switching = target !== current;
  if (switching && target) {
    const stored = tenant.gatewayCredentials?.[target];
    if (!sentPair && !stored) {
      issues.add(`${target}CustomerId`, 'is required with paymentGateway');
      issues.add(`${target}Token`, 'is required with paymentGateway');
    }
  }
  planGatewayAFlag(req, target, switching && target === 'gateway_a', issues, changes.set);
  if (switching) {
    changes.set.paymentGateway = target;
    changes.set.paymentStatus = target ? 'pending' : '';
    // The new gateway's events are not ordered against the old one's.
    changes.set.paymentStatusAt = null;
  }
}

/** Answers whether a pair (complete or not: its own problems are reported) was sent for the target gateway. */
function planPairs(tenant: TenantDoc, req: UpdateRequest, target: string, issues: Issues, changes: TenantChanges): boolean {
  let sentTarget = false;
  for (const pair of req.gatewayPairs) {
    const gw = pair.gateway;
    if (!isOneOf(PAYMENT_GATEWAYS, gw)) {
      issues.add('paymentGateway', `unknown gateway "${gw}"`);
      continue;
    }
    if (gw !== target) {
      const why = target ? `does not belong to ${target}` : 'needs paymentGateway';
      issues.add(pair.customerId !== undefined ? `${gw}CustomerId` : `${gw}Token`, why);
      continue;
    }
    sentTarget = true;
    issues.check(!!pair.customerId, `${gw}CustomerId`, 'is required with its token');
    issues.check(!!pair.token, `${gw}Token`, 'is required with its customer id');
    if (!pair.customerId || !pair.token) continue;
    storePair(tenant, gw, pair.customerId, pair.token, changes);
  }
  return sentTarget;
}

function storePair(tenant: TenantDoc, gw: PaymentGateway, customerId: string, token: string, changes: TenantChanges): void {
  changes.set[`gatewayCredentials.${gw}`] = { customerId, token };
  const previous = tenant.gatewayCredentials?.[gw]?.customerId;
  if (previous === customerId) return;
  changes.claimCustomers.push(customerKey(gw, customerId));
  if (previous) changes.releaseCustomers.push(customerKey(gw, previous));
}

function planGatewayAFlag(req: UpdateRequest, target: string, switchingToA: boolean, issues: Issues, set: Record<string, unknown>): void {
  if (req.gatewayA !== undefined) {
    issues.check(isOneOf(ENABLED_DISABLED, req.gatewayA), 'gateway_a', 'must be enabled or disabled');
    issues.check(req.gatewayA !== 'enabled' || target === 'gateway_a', 'gateway_a', 'can be enabled only with paymentGateway gateway_a');
  }
  if (switchingToA) issues.check(req.gatewayA === 'enabled', 'gateway_a', 'must be "enabled" with gateway_a');
  if (target !== 'gateway_a') set.gatewayAEnabled = false;
  else if (req.gatewayA !== undefined) set.gatewayAEnabled = req.gatewayA === 'enabled';
}
