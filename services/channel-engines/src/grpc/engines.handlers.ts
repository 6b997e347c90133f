import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { EnginesService } from '../domain/engines.service';

export function enginesHandlers(svc: EnginesService): AsyncHandlers<ServiceRegistry['channelEngines']['handlers']> {
  return {
    ParseInbound: async () => { throw new Error('PENDING: ParseInbound not implemented yet'); },
    PullWebchat: async () => { throw new Error('PENDING: PullWebchat not implemented yet'); },
    Deliver: (req) => svc.deliver(req),
    ListDrivers: async () => ({ kinds: svc.kinds() }),
    CheckNumber: (req) => svc.checkNumber(req),
  };
}
