import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { TenantsService } from '../domain/tenants.service';

export function tenantsHandlers(svc: TenantsService): AsyncHandlers<ServiceRegistry['tenants']['handlers']> {
  return {
    StoreTenant: (req) => svc.storeTenant(req),
    ShowTenant: (req) => svc.showTenant(req.id),
    CreateSession: (req) => svc.createSession(req),
    GetChannel: (req) => svc.getChannel(req.tenantId, req.channelId),
    ResolveApiToken: (req) => svc.resolveApiToken(req.apiId, req.tokenSha256),
  };
}
