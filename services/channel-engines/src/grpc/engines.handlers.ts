import type { AsyncHandlers, Logger, ServiceRegistry } from '@convo/kit';
import type { EnginesService } from '../domain/engines.service';
import { serveDeliveries } from './deliver-stream';

export function enginesHandlers(svc: EnginesService, log: Logger): AsyncHandlers<ServiceRegistry['channelEngines']['handlers']> {
  return {
    DeliverStream: (call, draining) => serveDeliveries(svc, call, draining, log),
    ParseInbound: (req) => svc.parseInbound(req),
    PullWebchat: (req) => svc.pullWebchat(req),
    Deliver: (req) => svc.deliver(req),
    ListDrivers: async () => ({ kinds: svc.kinds() }),
    CheckNumber: (req) => svc.checkNumber(req),
    SendPresence: (req) => svc.sendPresence(req),
  };
}
