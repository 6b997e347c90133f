import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { IngestService } from '../domain/ingest.service';
import type { ReadService } from '../domain/read.service';
import type { SendService } from '../domain/send.service';

export function messagingHandlers(
  svc: SendService,
  read: ReadService,
  ingest: IngestService,
): AsyncHandlers<ServiceRegistry['messaging']['handlers']> {
  return {
    SendInteractive: (req, call) => svc.sendInteractive(req, call.getDeadline()),
    IngestEvents: (req) => ingest.ingestEvents(req.events),
    IngestInbound: (req) => ingest.ingestInbound(req),
    OpenTicket: (req, call) => svc.openTicket(req, call.getDeadline()),
    SendEvaluation: (req, call) => svc.sendEvaluation(req, call.getDeadline()),
    // Also on SendByTicketStream, the gateway's (the kit serves it with this handler: grpc/call-stream.ts).
    SendByTicket: (req, call) => svc.sendByTicket(req, call.getDeadline()),
    SendPresence: (req, call) => svc.sendPresence(req, call.getDeadline()),
    SendChange: (req, call) => svc.sendChange(req, call.getDeadline()),
    SendTemplate: (req, call) => svc.sendTemplate(req, call.getDeadline()),
    ListTemplates: (req) => svc.listTemplates(req),
    GetMessage: (req) => svc.getMessage(req.tenantId, req.messageId),
    GetMedia: (req) => svc.getMedia(req.mediaId),
    ListTicketMessages: (req) => read.listTicketMessages(req),
    SearchMessages: (req) => read.searchMessages(req),
    LastMessages: (req) => read.lastMessages(req),
  };
}
