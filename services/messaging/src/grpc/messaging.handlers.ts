import { type AsyncHandlers, type Logger, serveCallStream, type ServiceRegistry } from '@convo/kit';
import type { IngestService } from '../domain/ingest.service';
import type { ReadService } from '../domain/read.service';
import type { SendService } from '../domain/send.service';

export function messagingHandlers(svc: SendService, read: ReadService, ingest: IngestService, log: Logger): AsyncHandlers<ServiceRegistry['messaging']['handlers']> {
  return {
    SendInteractive: (req, call) => svc.sendInteractive(req, call.getDeadline()),
    IngestEvents: (req) => ingest.ingestEvents(req.events),
    IngestInbound: (req) => ingest.ingestInbound(req),
    OpenTicket: (req, call) => svc.openTicket(req, call.getDeadline()),
    SendEvaluation: (req, call) => svc.sendEvaluation(req, call.getDeadline()),
    SendByTicket: (req, call) => svc.sendByTicket(req, call.getDeadline()),
    // The gateway's sends on one stream (the kit's grpc/call-stream.ts), each with its own deadline.
    SendByTicketStream: (call, draining) =>
      serveCallStream(call, draining, (req, item) => svc.sendByTicket(req, item.deadline), { service: 'messaging', method: 'SendByTicket', server: 'messaging', log }),
    SendPresence: (req, call) => svc.sendPresence(req, call.getDeadline()),
    GetMessage: (req) => svc.getMessage(req.tenantId, req.messageId),
    GetMedia: (req) => svc.getMedia(req.mediaId),
    ListTicketMessages: (req) => read.listTicketMessages(req),
    SearchMessages: (req) => read.searchMessages(req),
    LastMessages: (req) => read.lastMessages(req),
  };
}
