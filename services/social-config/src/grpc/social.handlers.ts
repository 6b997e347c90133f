import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { ProfilesService } from '../domain/profiles.service';

export function socialHandlers(svc: ProfilesService): AsyncHandlers<ServiceRegistry['socialConfig']['handlers']> {
  return {
    Configure: async () => { throw new Error('PENDING: Configure not implemented yet'); },
    GetProfile: (req) => svc.get(req.tenantId, req.channelId),
  };
}
