import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { ConfigureService } from '../domain/configure.service';
import type { ProfilesService } from '../domain/profiles.service';

export function socialHandlers(
  profiles: ProfilesService,
  configure: ConfigureService,
): AsyncHandlers<ServiceRegistry['socialConfig']['handlers']> {
  return {
    Configure: async (req) => ({ json: JSON.stringify(await configure.configure(req)) }),
    GetProfile: (req) => profiles.get(req.tenantId, req.channelId),
  };
}
