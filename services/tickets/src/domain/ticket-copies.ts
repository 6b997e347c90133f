import { performance } from 'node:perf_hooks';
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

  /**
   * Resolves once every copy handed out before the call has run out: `ms` later on the monotonic
   * clock messaging counts copies on. A timer alone may fire a few milliseconds early (it counts
   * from the event loop's cached time), so the clock is read again until the time has passed.
   */
  async runOut(): Promise<void> {
    const until = performance.now() + this.ms;
    for (let left = this.ms; left > 0; left = until - performance.now()) {
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
    }
  }
}
