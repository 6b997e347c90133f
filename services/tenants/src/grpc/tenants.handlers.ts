import type { AsyncHandlers, proto, ServiceRegistry } from '@convo/kit';
import type * as grpc from '@grpc/grpc-js';
import type { ChannelsService } from '../domain/channels.service';
import type { IntegrationsService } from '../domain/integrations.service';
import type { PaymentsService } from '../domain/payments.service';
import type { RevocationFeed } from '../domain/revocations';
import type { TenantsService } from '../domain/tenants.service';

export interface TenantsDomain {
  tenants: TenantsService;
  channels: ChannelsService;
  integrations: IntegrationsService;
  payments: PaymentsService;
  revocations: RevocationFeed;
}

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
    CreateSession: (req) => d.channels.createSession(req),
    UpdateChannel: (req) => d.channels.updateChannel(req),
    GetChannel: (req) => d.channels.getChannel(req.tenantId, req.channelId),
    FindChannelByAccount: (req) => d.channels.findChannelByAccount(req.type, req.accountId),
    ListChannelIntegrations: (req) => d.channels.listChannelIntegrations(req.tenantId, req.channelId),
    SetChannelStatus: (req) => d.channels.setChannelStatus(req.tenantId, req.channelId, req.status),
    CreateApi: (req) => d.integrations.createApi(req),
    DeleteApi: (req) => d.integrations.deleteApi(req),
    ResolveApiToken: (req) => d.integrations.resolveApiToken(req.apiId, req.tokenSha256),
    WatchRevocations: (_req, call) => streamRevocations(d.revocations, call),
    ApplyPaymentWebhook: (req) => d.payments.applyWebhook(req),
    ListUsers: (req) => d.tenants.listUsers(req),
    AuthenticateAdmin: (req) => d.tenants.authenticateAdmin(req.email, req.password),
  };
}
