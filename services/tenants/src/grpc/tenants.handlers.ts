import { callerOf, forbidden, type AsyncHandlers, type proto, type ServiceRegistry } from '@convo/kit';
import type * as grpc from '@grpc/grpc-js';
import type { ChannelsService } from '../domain/channels.service';
import type { IntegrationsService } from '../domain/integrations.service';
import type { PaymentsService } from '../domain/payments/payments.service';
import type { RevocationFeed } from '../domain/revocations';
import type { TenantsService } from '../domain/tenants.service';
import { channelFor } from './channel-secrets';

export interface TenantsDomain {
  tenants: TenantsService;
  channels: ChannelsService;
  integrations: IntegrationsService;
  payments: PaymentsService;
  revocations: RevocationFeed;
}

/** Callers that may look a channel up by id alone, whatever its tenant (GetChannel with tenantId 0). */
const ANY_TENANT_CALLERS = new Set(['gateway', 'messaging']);

/** Keeps a watcher subscribed until its client goes away or the server ends the stream. */
export function streamRevocations(
  feed: RevocationFeed,
  call: grpc.ServerWritableStream<unknown, proto.tenants.RevocationBatch>,
): Promise<void> {
  return new Promise((resolve) => {
    const stop = feed.watch((apiIds) => call.write({ apiIds }));
    const end = () => {
      stop();
      resolve();
    };
    call.once('cancelled', end);
    call.once('close', end);
    call.once('error', end);
  });
}

export function tenantsHandlers(d: TenantsDomain): AsyncHandlers<ServiceRegistry['tenants']['handlers']> {
  return {
    StoreTenant: (req) => d.tenants.storeTenant(req),
    ShowTenant: (req) => d.tenants.showTenant(req.id),
    ListTenants: (req) => d.tenants.listTenants(req),
    UpdateTenant: (req) => d.tenants.updateTenant(req),
    // Every channel answered carries only the secrets its caller uses (channel-secrets.ts).
    CreateSession: async (req, call) => {
      const res = await d.channels.createSession(req);
      return { ...res, whatsapp: channelFor(callerOf(call), res.whatsapp) };
    },
    UpdateChannel: async (req, call) => {
      const res = await d.channels.updateChannel(req);
      return { ...res, whatsapp: channelFor(callerOf(call), res.whatsapp) };
    },
    GetChannel: async (req, call) => {
      // Any tenant's channel (tenantId 0) only for the callers that resolve channels by id alone:
      // the gateway (engine webhooks, web chat) and messaging (ingest).
      if (req.tenantId === 0 && !ANY_TENANT_CALLERS.has(callerOf(call)))
        throw forbidden("Only the gateway and messaging may look up any tenant's channel");
      return channelFor(callerOf(call), await d.channels.getChannel(req.tenantId, req.channelId));
    },
    ListChannels: async (req, call) => ({
      channels: (await d.channels.listChannels(req.tenantId)).map((c) => channelFor(callerOf(call), c)),
    }),
    FindChannelByAccount: async (req, call) => channelFor(callerOf(call), await d.channels.findChannelByAccount(req.type, req.accountId)),
    ListChannelIntegrations: (req) => d.channels.listChannelIntegrations(req.tenantId, req.channelId),
    SetChannelStatus: async (req, call) =>
      channelFor(callerOf(call), await d.channels.setChannelStatus(req.tenantId, req.channelId, req.status)),
    CreateApi: (req) => d.integrations.createApi(req),
    DeleteApi: (req) => d.integrations.deleteApi(req),
    ResolveApiToken: (req) => d.integrations.resolveApiToken(req.apiId, req.tokenSha256),
    WatchRevocations: (_req, call) => streamRevocations(d.revocations, call),
    ApplyPaymentWebhook: (req) => d.payments.applyWebhook(req),
    ListUsers: (req) => d.tenants.listUsers(req),
    GetUser: (req) => d.tenants.getUser(req.tenantId, req.userId),
    AuthenticateAdmin: (req) => d.tenants.authenticateAdmin(req.email, req.password),
    CheckAdminSession: (req) => d.tenants.checkAdminSession(req.tenantId, req.userId, req.credentialsVersion),
  };
}
