import { type grpc, type Logger, notFound, type proto } from '@convo/kit';
import type { ChannelLookup } from '../channels/channel-lookup';
import type { MessagesRepository } from '../db/messages.repository';
import type { MediaService } from './media.service';
import { toMessage } from './message-view';
import { SendChannels } from './send-channels';
import { Acceptance, type Peers } from './send/acceptance';
import { sendByTicket } from './send/by-ticket';
import { sendChange } from './send/change';
import { sendEvaluation } from './send/evaluation';
import { sendInteractive } from './send/interactive';
import { openTicket } from './send/open-ticket';
import { sendPresence } from './send/presence';
import { listTemplates, sendTemplate } from './send/template';
import { TicketSnapshots } from './ticket-snapshots';

export { SEND_KEY_WINDOW_MS, type Peers } from './send/acceptance';

/**
 * Messaging's send operations, one file each under send/ (a text or file by ticket, number or
 * group; an interactive message; a template; a ticket opened with its first message; a survey;
 * presence), on what they share (send/acceptance.ts); and the reads of a message and a file.
 */
export class SendService {
  private readonly acceptance: Acceptance;

  constructor(
    private readonly repo: MessagesRepository,
    peers: Peers,
    private readonly media: MediaService,
    log: Logger,
    channels: ChannelLookup,
  ) {
    this.acceptance = new Acceptance(
      repo,
      peers,
      media,
      log,
      new SendChannels(peers.engines, channels),
      new TicketSnapshots(peers.tickets),
    );
  }

  sendByTicket(req: proto.messaging.SendByTicketRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendByTicketResponse> {
    return sendByTicket(this.acceptance, req, deadline);
  }

  sendPresence(req: proto.messaging.SendPresenceRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendPresenceResponse> {
    return sendPresence(this.acceptance, req, deadline);
  }

  /** sendReaction, editMessage, deleteMessage: a change to a stored message, queued (send/change.ts). */
  sendChange(req: proto.messaging.SendChangeRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendChangeResponse> {
    return sendChange(this.acceptance, req, deadline);
  }

  openTicket(req: proto.messaging.OpenTicketRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.OpenTicketResponse> {
    return openTicket(this.acceptance, req, deadline);
  }

  sendEvaluation(
    req: proto.messaging.SendEvaluationRequest__Output,
    deadline?: grpc.Deadline,
  ): Promise<proto.messaging.SendEvaluationResponse> {
    return sendEvaluation(this.acceptance, req, deadline);
  }

  sendInteractive(
    req: proto.messaging.SendInteractiveRequest__Output,
    deadline?: grpc.Deadline,
  ): Promise<proto.messaging.SendByTicketResponse> {
    return sendInteractive(this.acceptance, req, deadline);
  }

  sendTemplate(req: proto.messaging.SendTemplateRequest__Output, deadline?: grpc.Deadline): Promise<proto.messaging.SendByTicketResponse> {
    return sendTemplate(this.acceptance, req, deadline);
  }

  listTemplates(req: proto.messaging.ListTemplatesRequest__Output): Promise<proto.messaging.ListTemplatesResponse> {
    return listTemplates(this.acceptance, req);
  }

  async getMedia(mediaId: string) {
    return this.media.get(mediaId);
  }

  async getMessage(tenantId: number, messageId: string) {
    const doc = await this.repo.findById(tenantId, messageId);
    if (!doc) throw notFound('message');
    return toMessage(doc);
  }
}
