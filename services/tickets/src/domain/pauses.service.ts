import { conflict, notFound, validation, type proto } from '@convo/kit';
import type { PauseDoc, TicketDoc } from '../db/models';
import type { TicketsDatabase } from '../db/repositories';
import { iso, toTicket } from './ticket-view';

/** The pause log answers pages of this many pauses, as listTickets does. */
export const PAUSES_PAGE_SIZE = 20;
const MAX_PAUSE_REASON = 500;
/** Open or pending: what a pause may start on. */
const NOT_CLOSED = { status: { $ne: 'closed' as const } };

/** Pauses of a ticket: its paused flag and the log of its pauses. */
export class PausesService {
  constructor(private readonly repo: TicketsDatabase) {}

  /**
   * A pause marks that the agent stopped working the ticket for a while (a break, waiting on a
   * third party); it leaves `status` as it is and does not stop messages.
   */
  async startPause(tenantId: number, ticketId: number, rawReason: string) {
    const pauseReason = rawReason.trim();
    if (!pauseReason || pauseReason.length > MAX_PAUSE_REASON) {
      throw validation('Invalid pause', [{ field: 'pauseReason', message: `is required, at most ${MAX_PAUSE_REASON} characters` }]);
    }
    const now = new Date();
    const updated = await this.repo.tickets.updateTicketWhere(
      tenantId,
      ticketId,
      { ...NOT_CLOSED, paused: { $ne: true } },
      { $set: { paused: true, pauseReason, pausedAt: now, updatedAt: now } },
    );
    if (updated) {
      const entry: PauseDoc = {
        _id: await this.repo.nextId('pause'),
        tenantId,
        ticketId,
        pauseReason,
        startedAt: now,
        endedAt: null,
        endedBy: '',
      };
      try {
        await this.repo.notes.insertPause(entry);
      } catch (err) {
        // Not logged, not paused: the pause this call set is taken back.
        await this.repo.tickets.updateTicketWhere(
          tenantId,
          ticketId,
          { paused: true, pausedAt: now },
          { $set: { paused: false, pauseReason: null, pausedAt: null } },
        );
        throw err;
      }
      return toTicket(updated);
    }
    const ticket = await this.requireTicket(tenantId, ticketId);
    if (ticket.status === 'closed') throw conflict('ERR_TICKET_CLOSED', 'A closed ticket cannot be paused');
    throw conflict('ERR_TICKET_ALREADY_PAUSED', `Ticket is already paused since ${iso(ticket.pausedAt)}`);
  }

  async endPause(tenantId: number, ticketId: number) {
    const updated = await this.repo.tickets.updateTicketWhere(
      tenantId,
      ticketId,
      { paused: true },
      { $set: { paused: false, pauseReason: null, pausedAt: null, updatedAt: new Date() } },
    );
    if (updated) {
      await this.repo.notes.endPauses(tenantId, ticketId, 'end', updated.updatedAt);
      return toTicket(updated);
    }
    await this.requireTicket(tenantId, ticketId);
    throw conflict('ERR_TICKET_NOT_PAUSED', 'Ticket is not paused');
  }

  /** The pause log of one ticket of the tenant, oldest first. */
  async listPauses(req: proto.tickets.ListPausesRequest__Output): Promise<proto.tickets.PausePage> {
    const page = Math.max(1, req.page || 1);
    const [ticket, pauses, count] = await Promise.all([
      this.repo.tickets.findTicket(req.tenantId, req.ticketId),
      this.repo.notes.listPauses(req.tenantId, req.ticketId, (page - 1) * PAUSES_PAGE_SIZE, PAUSES_PAGE_SIZE),
      this.repo.notes.countPauses(req.tenantId, req.ticketId),
    ]);
    if (!ticket) throw notFound('ticket');
    return {
      pauses: pauses.map((p) => ({
        id: p._id,
        ticketId: p.ticketId,
        pauseReason: p.pauseReason,
        startedAt: iso(p.startedAt),
        endedAt: iso(p.endedAt),
        endedBy: p.endedBy ?? '',
      })),
      count,
      hasMore: page * PAUSES_PAGE_SIZE < count,
      page,
      pageSize: PAUSES_PAGE_SIZE,
    };
  }

  private async requireTicket(tenantId: number, ticketId: number): Promise<TicketDoc> {
    const ticket = await this.repo.tickets.findTicket(tenantId, ticketId);
    if (!ticket) throw notFound('ticket');
    return ticket;
  }
}
