import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { SendService } from '../domain/send.service';

export function messagingHandlers(svc: SendService): AsyncHandlers<ServiceRegistry['messaging']['handlers']> {
  return {
    SendByTicket: (req) => svc.sendByTicket(req),
    GetMessage: (req) => svc.getMessage(req.tenantId, req.messageId),
  };
}
