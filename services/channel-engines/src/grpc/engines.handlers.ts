import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { EnginesService } from '../domain/engines.service';

export function enginesHandlers(svc: EnginesService): AsyncHandlers<ServiceRegistry['channelEngines']['handlers']> {
  return {
    ParseInbound: (req) => svc.parseInbound(req),
    PullWebchat: (req) => svc.pullWebchat(req),
    // Also on DeliverStream, the dispatcher's (the kit serves it with this handler: grpc/call-stream.ts).
    Deliver: (req) => svc.deliver(req),
    ListDrivers: async () => ({ kinds: svc.kinds() }),
    CheckNumber: (req) => svc.checkNumber(req),
    SendPresence: (req) => svc.sendPresence(req),
    ListTemplates: (req) => svc.listTemplates(req),
  };
}
