import { Schema, type Connection } from 'mongoose';
import {
  paymentChangeSchema,
  paymentEventSchema,
  paymentRepeatSchema,
  reconciliationRunSchema,
  type PaymentChangeDoc,
  type PaymentEventDoc,
} from './payment-models';

export type { PaymentChangeDoc, PaymentEventDoc };

export interface GatewayAccountDoc {
  customerId: string;
  token: string;
}

export interface WebhookProxyDoc {
  url: string;
  secret: string;
}

export interface TenantDoc {
  _id: number;
  name: string;
  status: 'active' | 'inactive';
  maxUsers: number;
  maxConnections: number;
  identity: string;
  planId?: number;
  paymentGateway: string;
  gatewayAEnabled: boolean;
  /** Per gateway; kept when the tenant switches gateways, so switching back needs no new pair. */
  gatewayCredentials: Record<string, GatewayAccountDoc>;
  paymentStatus: string;
  /** The own time of the event that set paymentStatus: an older event never overwrites it. */
  paymentStatusAt?: Date | null;
  /** Since when (the event's time) the payment status is overdue; null otherwise. */
  paymentOverdueSince?: Date | null;
  /** Set inactive by PAYMENT_SUSPEND_AFTER_DAYS: a paid event sets it active again. */
  suspendedByPayment?: boolean;
  supportChatEnabled: boolean;
  menuVisibility: string[];
  allowedChannels: string[];
  /** Keyed by limit key (docs/api/tenant.md); 0 = unlimited. */
  channelConnectionLimits: Record<string, number>;
  oauthEnabled: boolean;
  oauthProxyUrl: string;
  webhookProxies: Record<string, WebhookProxyDoc>;
  createdAt: Date;
  updatedAt: Date;
}

export interface UserDoc {
  _id: number;
  tenantId: number;
  name: string;
  email: string;
  passwordHash: string;
  profile: 'admin' | 'user';
  createdAt: Date;
}

export interface PlanDoc {
  _id: number;
  name: string;
  maxUsers: number;
  maxConnections: number;
  features: string[];
  /** Empty: the plan does not restrict channel types. */
  allowedChannels: string[];
  createdAt: Date;
}

export interface ChannelDoc {
  _id: number;
  tenantId: number;
  name: string;
  status: 'DISCONNECTED' | 'CONNECTED';
  type: string;
  /** The channelConnectionLimits key the channel counts under. */
  channelKind: string;
  tokenAPI: string;
  wabaId: string;
  bmToken: string;
  hybridMode: string;
  linkedChannelId?: number;
  engineUrl: string;
  engineToken: string;
  webhookEnabled: boolean;
  webhookUrl: string;
  webhookIncoming: boolean;
  pageId: string;
  pageToken: string;
  /** webmail: the From address of outgoing e-mail. */
  emailAddress: string;
  /** Least ms between two sends on the channel (dispatcher pacing); null: the kind's default. */
  sendIntervalMs?: number | null;
  /** waba: MARKETING templates through Meta's Marketing Messages API (POST /{phone-number-id}/marketing_messages). */
  marketingMessagesApi?: boolean;
  /** Standard Webhooks secret ("whsec_" + base64) signing this channel's customer webhooks. */
  webhookSecret: string;
  /** After a rotation the previous secret also signs until `webhookSecretPreviousUntil`. */
  webhookSecretPrevious?: string;
  webhookSecretPreviousUntil?: Date;
  createdAt: Date;
  updatedAt: Date;
}

export interface ApiIntegrationDoc {
  _id: string;
  tenantId: number;
  name: string;
  sessionId: number;
  urlServiceStatus: string;
  urlMessageStatus: string;
  userId: number;
  tokenHash: string;
  createdAt: Date;
}

// Claims: documents whose only job is a unique `_id`. FerretDB has no transactions and applies
// findOneAndUpdate as read-then-write, so "only one may have X" is an insert that fails with a
// duplicate key for everyone but the first, on every replica.

/** `_id`: the normalised tax id. One tenant per identity, since updates are keyed by it. */
export interface IdentityClaimDoc {
  _id: string;
  tenantId: number;
}

/** `_id`: `<gateway>:<customerId>`. Webhooks find the tenant through it. */
export interface CustomerClaimDoc {
  _id: string;
  tenantId: number;
}

/** `_id`: `<tenantId>:<limit key or "all">:<n>`, n = 1..limit. One per counted channel. */
export interface SlotClaimDoc {
  _id: string;
  tenantId: number;
  channelId: number;
}

/** `_id`: `waba:<channelId>` or `transport:<channelId>`; a link holds one of each. */
export interface LinkClaimDoc {
  _id: string;
  tenantId: number;
  wabaId: number;
  transportId: number;
  createdAt: Date;
}

/** `_id`: the deleted integration's apiId. Read by every replica's revocation feed. */
export interface RevocationDoc {
  _id: string;
  tenantId: number;
  createdAt: Date;
}

export interface SeedClaimDoc {
  _id: string;
  createdAt: Date;
}

const opts = { versionKey: false as const, timestamps: false };

function tenantSchema() {
  const tenant = new Schema<TenantDoc>(
    {
      _id: Number,
      name: { type: String, required: true },
      status: { type: String, required: true },
      maxUsers: Number,
      maxConnections: Number,
      identity: { type: String, default: '' },
      planId: Number,
      paymentGateway: { type: String, default: '' },
      gatewayAEnabled: { type: Boolean, default: false },
      gatewayCredentials: { type: Schema.Types.Mixed, default: {} },
      paymentStatus: { type: String, default: '' },
      paymentStatusAt: { type: Date, default: null },
      paymentOverdueSince: { type: Date, default: null },
      suspendedByPayment: { type: Boolean, default: false },
      supportChatEnabled: { type: Boolean, default: false },
      menuVisibility: { type: [String], default: [] },
      allowedChannels: { type: [String], default: [] },
      channelConnectionLimits: { type: Schema.Types.Mixed, default: {} },
      oauthEnabled: { type: Boolean, default: false },
      oauthProxyUrl: { type: String, default: '' },
      webhookProxies: { type: Schema.Types.Mixed, default: {} },
      createdAt: Date,
      updatedAt: Date,
    },
    { ...opts, minimize: false },
  );
  // Listing filters on status (equality) and pages by id.
  tenant.index({ status: 1, _id: 1 });
  // Reconciliation reads the tenants that have a payment gateway, by id.
  tenant.index({ paymentGateway: 1, _id: 1 });
  // Suspension looks for active tenants overdue since before a day.
  tenant.index({ paymentStatus: 1, status: 1, paymentOverdueSince: 1 });
  return tenant;
}

function userSchema() {
  const user = new Schema<UserDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      name: String,
      email: { type: String, required: true },
      passwordHash: String,
      profile: String,
      createdAt: Date,
    },
    opts,
  );
  user.index({ email: 1 }, { unique: true });
  user.index({ tenantId: 1, profile: 1, _id: 1 });
  // listUsers: a tenant's users by name.
  user.index({ tenantId: 1, name: 1, _id: 1 });
  return user;
}

function channelSchema() {
  const channel = new Schema<ChannelDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      name: String,
      status: String,
      type: String,
      channelKind: { type: String, default: '' },
      tokenAPI: { type: String, default: '' },
      wabaId: { type: String, default: '' },
      bmToken: { type: String, default: '' },
      hybridMode: { type: String, default: 'disabled' },
      linkedChannelId: Number,
      engineUrl: { type: String, default: '' },
      engineToken: { type: String, default: '' },
      webhookEnabled: { type: Boolean, default: false },
      webhookUrl: { type: String, default: '' },
      webhookIncoming: { type: Boolean, default: false },
      pageId: { type: String, default: '' },
      pageToken: { type: String, default: '' },
      emailAddress: { type: String, default: '' },
      sendIntervalMs: { type: Number, default: null },
      marketingMessagesApi: { type: Boolean, default: false },
      webhookSecret: { type: String, default: '' },
      webhookSecretPrevious: String,
      webhookSecretPreviousUntil: Date,
      createdAt: Date,
      updatedAt: Date,
    },
    opts,
  );
  channel.index({ tenantId: 1, _id: 1 });
  // Per-type connection counts.
  channel.index({ tenantId: 1, channelKind: 1 });
  // Inbound Meta webhooks name the account: waba by phone-number id, social channels by page id;
  // the oldest channel of an account wins (sort by _id), so the id closes each index.
  channel.index({ type: 1, tokenAPI: 1, _id: 1 });
  channel.index({ type: 1, pageId: 1, _id: 1 });
  return channel;
}

function apiSchema() {
  const api = new Schema<ApiIntegrationDoc>(
    {
      _id: String,
      tenantId: { type: Number, required: true },
      name: String,
      sessionId: Number,
      urlServiceStatus: { type: String, default: '' },
      urlMessageStatus: { type: String, default: '' },
      userId: Number,
      tokenHash: { type: String, required: true },
      createdAt: Date,
    },
    opts,
  );
  api.index({ tokenHash: 1 }, { unique: true });
  api.index({ tenantId: 1 });
  // A tenant's integrations, oldest first (the dashboard's Tenant.integrations).
  api.index({ tenantId: 1, createdAt: 1 });
  // A channel's integrations, oldest first.
  api.index({ tenantId: 1, sessionId: 1, createdAt: 1 });
  return api;
}

const claimSchema = <T>(fields: Record<string, unknown>) => new Schema<T>({ _id: String, ...fields }, opts);

export function registerModels(conn: Connection) {
  const plan = new Schema<PlanDoc>(
    { _id: Number, name: String, maxUsers: Number, maxConnections: Number, features: [String], allowedChannels: [String], createdAt: Date },
    opts,
  );
  const revocation = claimSchema<RevocationDoc>({ tenantId: Number, createdAt: Date });
  // Each replica reads the recent revocations a few times a second.
  revocation.index({ createdAt: 1 });

  return {
    Tenant: conn.model<TenantDoc>('Tenant', tenantSchema(), 'tenants'),
    User: conn.model<UserDoc>('User', userSchema(), 'users'),
    Plan: conn.model<PlanDoc>('Plan', plan, 'plans'),
    Channel: conn.model<ChannelDoc>('Channel', channelSchema(), 'channels'),
    Api: conn.model<ApiIntegrationDoc>('ApiIntegration', apiSchema(), 'api_integrations'),
    IdentityClaim: conn.model<IdentityClaimDoc>('IdentityClaim', claimSchema({ tenantId: Number }), 'tenant_identities'),
    CustomerClaim: conn.model<CustomerClaimDoc>('CustomerClaim', claimSchema({ tenantId: Number }), 'payment_customers'),
    PaymentEvent: conn.model<PaymentEventDoc>('PaymentEvent', paymentEventSchema(), 'payment_events'),
    PaymentChange: conn.model<PaymentChangeDoc>('PaymentChange', paymentChangeSchema(), 'payment_changes'),
    PaymentRepeat: conn.model('PaymentRepeat', paymentRepeatSchema(), 'payment_event_repeats'),
    ReconciliationRun: conn.model('ReconciliationRun', reconciliationRunSchema(), 'payment_reconciliations'),
    SlotClaim: conn.model<SlotClaimDoc>('SlotClaim', claimSchema({ tenantId: Number, channelId: Number }), 'channel_slots'),
    LinkClaim: conn.model<LinkClaimDoc>(
      'LinkClaim',
      claimSchema({ tenantId: Number, wabaId: Number, transportId: Number, createdAt: Date }),
      'link_claims',
    ),
    Revocation: conn.model<RevocationDoc>('Revocation', revocation, 'api_revocations'),
    SeedClaim: conn.model<SeedClaimDoc>('SeedClaim', claimSchema({ createdAt: Date }), 'seed_claims'),
  };
}

export type Models = ReturnType<typeof registerModels>;
