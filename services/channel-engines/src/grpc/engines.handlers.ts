import { type AsyncHandlers, type Logger, serveCallStream, type ServiceRegistry } from '@convo/kit';
import type { EnginesService } from '../domain/engines.service';

export function enginesHandlers(svc: EnginesService, log: Logger): AsyncHandlers<ServiceRegistry['channelEngines']['handlers']> {
  return {
    // The dispatcher's deliveries (grpc/call-stream.ts in the kit): while the service shuts down,
    // those under way are answered and new ones refused unattempted, so no provider call's
    // outcome is lost to a rolling update.
    DeliverStream: (call, draining) =>
      serveCallStream(call, draining, (req) => svc.deliver(req), { service: 'channelEngines', method: 'Deliver', server: 'channel-engines', log }),
    ParseInbound: (req) => svc.parseInbound(req),
    PullWebchat: (req) => svc.pullWebchat(req),
    Deliver: (req) => svc.deliver(req),
    ListDrivers: async () => ({ kinds: svc.kinds() }),
    CheckNumber: (req) => svc.checkNumber(req),
    SendPresence: (req) => svc.sendPresence(req),
  };
}
