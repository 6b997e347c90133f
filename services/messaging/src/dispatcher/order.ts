import type { MessageDoc } from '../db/models';

const byAcceptance = (a: MessageDoc, b: MessageDoc) =>
  a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/** Each ticket's messages (and changes) in acceptance order (the order of their stored time, then of their ids, which are time-ordered). */
export function byTicket(messages: MessageDoc[]): Map<number, MessageDoc[]> {
  const tickets = new Map<number, MessageDoc[]>();
  for (const m of messages) {
    const list = tickets.get(m.ticketId);
    if (list) list.push(m);
    else tickets.set(m.ticketId, [m]);
  }
  for (const list of tickets.values()) {
    list.sort(byAcceptance);
  }
  return tickets;
}

/** Merges a ticket's queued messages and changes into acceptance order; `limit` each was read with. */
export function inAcceptanceOrder(messages: MessageDoc[], changes: MessageDoc[], limit = Infinity): MessageDoc[] {
  const all = [...messages, ...changes].sort(byAcceptance);
  // A list cut at its limit may have more after its last: nothing of the other list beyond that goes first.
  const cuts = [messages, changes].filter((l) => l.length >= limit).map((l) => l[l.length - 1]);
  if (!cuts.length) return all;
  const last = Math.min(...cuts.map((d) => all.indexOf(d)));
  return all.slice(0, last + 1);
}
