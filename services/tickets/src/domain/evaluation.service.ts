import { conflict, notFound, validation, type proto } from '@convo/kit';
import { randomUUID } from 'node:crypto';
import type { EvaluationClaimDoc, TicketDoc } from '../db/models';
import type { TicketsDatabase } from '../db/repositories';
import { toTicket } from './ticket-view';

/** sendEvaluation's externalKey deduplicates for this long (the seed leaves it open; see docs/api/external.md). */
export const EVALUATION_KEY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The satisfaction survey sent to the contact. */
export const EVALUATION_TEXT = 'How would you rate our service? Reply with a number from 1 (very dissatisfied) to 5 (very satisfied).';
const MAX_ANSWER = 1_000;

const onceId = (ticketId: number) => `once:${ticketId}`;
const keyId = (tenantId: number, key: string) => `key:${tenantId}:${key}`;

/**
 * The satisfaction survey of a ticket: sent once unless forced, deduplicated by externalKey, and
 * answered by the contact's reply. The send itself belongs to messaging; the caller brackets it
 * with begin (claims) and complete (records) or abort (frees the claims, nothing was delivered).
 */
export class EvaluationService {
  constructor(private readonly repo: TicketsDatabase) {}

  async begin(req: proto.tickets.BeginEvaluationRequest__Output): Promise<proto.tickets.BeginEvaluationResponse> {
    const ticket = await this.repo.tickets.findTicket(req.tenantId, req.ticketId);
    if (!ticket) throw notFound('ticket');
    // Sending to a closed ticket would need reopening it; the survey belongs before the close.
    if (ticket.status === 'closed') throw conflict('ERR_TICKET_CLOSED', 'Ticket is closed; send the evaluation before closing it');

    const claimId = randomUUID();
    const claim = (id: string): EvaluationClaimDoc => ({ _id: id, ticketId: ticket._id, claimId, createdAt: new Date() });

    if (req.externalKey) {
      const key = claim(keyId(req.tenantId, req.externalKey));
      const fresh =
        (await this.repo.claims.evaluations.claim(key)) ||
        (await this.repo.claims.evaluations.takeOver(
          key._id,
          { createdAt: { $lt: new Date(Date.now() - EVALUATION_KEY_WINDOW_MS) } },
          { ticketId: key.ticketId, claimId: key.claimId, createdAt: key.createdAt },
        ));
      if (!fresh) return { proceed: false, body: '', claimId: '', ticket: toTicket(ticket) };
    }

    // The once-claim exists for every ticket that was sent a survey; force sends regardless, but
    // still takes the claim when free, so that a later unforced call is refused.
    const once = claim(onceId(ticket._id));
    if (!(await this.repo.claims.evaluations.claim(once)) && !req.force) {
      await this.repo.claims.evaluations.releaseAll({ claimId });
      throw conflict('ERR_EVALUATION_ALREADY_SENT', 'The evaluation was already sent for this ticket; send force: true to send it again');
    }
    return { proceed: true, body: EVALUATION_TEXT, claimId, ticket: toTicket(ticket) };
  }

  /** Records the delivered survey; a new survey (force) replaces the previous one and its answer. */
  async complete(req: proto.tickets.CompleteEvaluationRequest__Output) {
    if (!req.claimId || !req.messageId) {
      throw validation('Invalid evaluation', [{ field: req.claimId ? 'messageId' : 'claimId', message: 'is required' }]);
    }
    const updated = await this.repo.tickets.updateTicket(req.tenantId, req.ticketId, {
      $set: { evaluation: { sentAt: new Date(), messageId: req.messageId, answer: null, answeredAt: null }, updatedAt: new Date() },
    });
    if (!updated) throw notFound('ticket');
    return toTicket(updated);
  }

  /** Frees what `begin` claimed: the survey was not delivered, so a retry must go through. */
  async abort(req: proto.tickets.AbortEvaluationRequest__Output) {
    if (req.claimId) await this.repo.claims.evaluations.releaseAll({ claimId: req.claimId });
    return {};
  }

  /**
   * The contact's reply to a pending survey. Called by the inbound message path; the first answer
   * is kept, a later one is refused so the caller treats that message as an ordinary one.
   */
  async recordAnswer(req: proto.tickets.RecordEvaluationAnswerRequest__Output) {
    const answer = req.answer.trim();
    if (!answer || answer.length > MAX_ANSWER) {
      throw validation('Invalid evaluation answer', [{ field: 'answer', message: `is required, at most ${MAX_ANSWER} characters` }]);
    }
    const updated = await this.repo.tickets.updateTicketWhere(
      req.tenantId,
      req.ticketId,
      { 'evaluation.sentAt': { $ne: null }, 'evaluation.answeredAt': null },
      { $set: { 'evaluation.answer': answer, 'evaluation.answeredAt': new Date(), updatedAt: new Date() } },
    );
    if (updated) return toTicket(updated);
    const ticket: TicketDoc | null = await this.repo.tickets.findTicket(req.tenantId, req.ticketId);
    if (!ticket) throw notFound('ticket');
    if (!ticket.evaluation?.sentAt) throw conflict('ERR_EVALUATION_NOT_SENT', 'No evaluation was sent for this ticket');
    throw conflict('ERR_EVALUATION_ALREADY_ANSWERED', 'The evaluation of this ticket was already answered');
  }
}
