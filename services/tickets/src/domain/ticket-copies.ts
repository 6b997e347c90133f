import type { proto } from '@convo/kit';

/**
 * How long messaging may act on a ticket it read without reading it again (GetTicket's
 * snapshotMs): it accepts sends on that copy. A close answers this long after it is stored, so
 * that a send asked after the close's answer is refused on every messaging replica.
 */
export const TICKET_SNAPSHOT_MS = 1_000;

/** The copies of tickets handed out to messaging (`ms` 0: none, and a close answers at once). */
export class TicketCopies {
  constructor(readonly ms = TICKET_SNAPSHOT_MS) {}

  /** A ticket as GetTicket hands it out: with how long the caller may act on it. */
  handOut(ticket: proto.tickets.Ticket): proto.tickets.Ticket {
    return { ...ticket, snapshotMs: this.ms };
  }

  /** Resolves once every copy handed out before the call has run out. */
  runOut(): Promise<void> {
    return this.ms > 0 ? new Promise((resolve) => setTimeout(resolve, this.ms)) : Promise.resolve();
  }
}
