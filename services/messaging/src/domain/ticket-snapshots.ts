import { performance } from 'node:perf_hooks';
import { countLookup, DomainError, type proto, type ServiceClient } from '@convo/kit';

type Ticket = proto.tickets.Ticket__Output;

/** Copies kept at the most (the oldest goes first): a few hundred bytes each. */
const MAX_ENTRIES = 10_000;

/**
 * Tickets as sends read them, kept for as long as tickets allows (GetTicket's snapshotMs, counted
 * from before the call, on this process's monotonic clock): the ticket's read is most of what
 * accepting a send costs, and a conversation's sends come in bursts. tickets answers a close only
 * once every copy handed out before it has run out, so a send asked after a close's answer is
 * refused on every replica.
 *
 * A copy may only be behind in ways that refuse what the ticket would take, so callers take a
 * copy's yes and read the ticket again before a no (`fresh`): the contact's last inbound time only
 * moves forward (a copy's 24-hour window ends no later than the ticket's) and a reopen is asked of
 * tickets anyway. A ticket without a number (an e-mail conversation: its address can be edited) is
 * not kept. Why not the kit's TtlCache: its entries live a fixed time from when they are stored; a
 * copy here lives the time the ticket's owner gives it, from before the question was asked.
 */
export class TicketSnapshots {
  private readonly kept = new Map<string, { ticket: Ticket; until: number }>();
  /** Reads under way: the sends missing one ticket at the same moment share one read. */
  private readonly reading = new Map<string, Promise<Ticket>>();

  constructor(private readonly tickets: Pick<ServiceClient<'tickets'>, 'GetTicket'>) {}

  /** The ticket, from a copy that is still good (`kept` true) or read now. */
  async get(tenantId: number, ticketId: number): Promise<{ ticket: Ticket; kept: boolean }> {
    const key = `${tenantId}:${ticketId}`;
    const hit = this.kept.get(key);
    const good = !!hit && hit.until > performance.now();
    countLookup('ticket', good);
    if (good) return { ticket: hit.ticket, kept: true };
    if (hit) this.kept.delete(key);
    const pending = this.reading.get(key);
    if (pending) return { ticket: await pending, kept: false };
    return { ticket: await this.fresh(tenantId, ticketId), kept: false };
  }

  /**
   * What `decide` answers of the ticket: on a kept copy when it answers at all (a copy is trusted
   * to say yes only: a refusal, a DomainError, is decided again on the ticket read now), and unless
   * `readAgain` says that answer needs the ticket as it is now.
   */
  async decide<T>(
    tenantId: number,
    ticketId: number,
    decide: (ticket: Ticket) => Promise<T>,
    readAgain: (answer: T) => boolean = () => false,
  ): Promise<{ ticket: Ticket; answer: T }> {
    const { ticket: copy, kept } = await this.get(tenantId, ticketId);
    if (kept) {
      try {
        const answer = await decide(copy);
        if (!readAgain(answer)) return { ticket: copy, answer };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
      }
    }
    const ticket = kept ? await this.fresh(tenantId, ticketId) : copy;
    return { ticket, answer: await decide(ticket) };
  }

  /** The ticket read now (its copy replaced). */
  async fresh(tenantId: number, ticketId: number): Promise<Ticket> {
    const key = `${tenantId}:${ticketId}`;
    const asked = performance.now();
    const read = this.tickets.GetTicket({ tenantId, ticketId });
    this.reading.set(key, read);
    try {
      const ticket = await read;
      this.keep(key, ticket, asked);
      return ticket;
    } catch (err) {
      this.kept.delete(key);
      throw err;
    } finally {
      if (this.reading.get(key) === read) this.reading.delete(key);
    }
  }

  /** This process changed the ticket (a send's reopen or close): its copy goes. */
  forget(tenantId: number, ticketId: number): void {
    this.kept.delete(`${tenantId}:${ticketId}`);
  }

  private keep(key: string, ticket: Ticket, asked: number): void {
    this.kept.delete(key);
    if (!ticket.snapshotMs || !ticket.contact?.number) return;
    // Maps iterate in insertion order: the first key is the oldest.
    if (this.kept.size >= MAX_ENTRIES) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { ticket, until: asked + ticket.snapshotMs });
  }
}
