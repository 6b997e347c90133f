import type { MessageDoc } from '../../src/db/models';
import { inAcceptanceOrder } from '../../src/dispatcher/order';
import { queuedText } from '../fixtures';

// A ticket's queued messages and changes (message_changes) merged into one acceptance order.

const at = (id: string, ms: number): MessageDoc => queuedText({ _id: id, ticketId: 1, createdAt: new Date(ms), updatedAt: new Date(ms) });

describe('inAcceptanceOrder', () => {
  it('interleaves messages and changes by acceptance time, then id', () => {
    const ids = inAcceptanceOrder([at('m1', 10), at('m2', 30)], [at('c1', 20), at('c0', 30)]).map((d) => d._id);
    expect(ids).toEqual(['m1', 'c1', 'c0', 'm2']);
  });

  it('stops at the last item of a list read up to its limit: what follows it may be unread', () => {
    // Messages read 2 of more: a change accepted after m2 waits for the next read, behind m3.
    const ids = inAcceptanceOrder([at('m1', 10), at('m2', 30)], [at('c1', 20), at('c2', 40)], 2).map((d) => d._id);
    expect(ids).toEqual(['m1', 'c1', 'm2']);
  });
});
