import { Schema, type Connection } from 'mongoose';

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
  gatewayCredentials: Record<string, { customerId: string; token: string }>;
  paymentStatus: string;
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
  createdAt: Date;
}

export interface ChannelDoc {
  _id: number;
  tenantId: number;
  name: string;
  status: 'DISCONNECTED' | 'CONNECTED';
  type: string;
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

const opts = { versionKey: false as const, timestamps: false };

export function registerModels(conn: Connection) {
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
      createdAt: Date,
      updatedAt: Date,
    },
    opts,
  );
  tenant.index({ identity: 1 });
  tenant.index({ status: 1, _id: 1 });

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
  user.index({ tenantId: 1 });

  const plan = new Schema<PlanDoc>(
    { _id: Number, name: String, maxUsers: Number, maxConnections: Number, features: [String], createdAt: Date },
    opts,
  );

  const channel = new Schema<ChannelDoc>(
    {
      _id: Number,
      tenantId: { type: Number, required: true },
      name: String,
      status: String,
      type: String,
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
      createdAt: Date,
      updatedAt: Date,
    },
    opts,
  );
  channel.index({ tenantId: 1, _id: 1 });

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

  return {
    Tenant: conn.model<TenantDoc>('Tenant', tenant, 'tenants'),
    User: conn.model<UserDoc>('User', user, 'users'),
    Plan: conn.model<PlanDoc>('Plan', plan, 'plans'),
    Channel: conn.model<ChannelDoc>('Channel', channel, 'channels'),
    Api: conn.model<ApiIntegrationDoc>('ApiIntegration', api, 'api_integrations'),
  };
}

export type Models = ReturnType<typeof registerModels>;
