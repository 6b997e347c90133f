import { conflict, Issues, notFound, validation, type proto } from '@convo/kit';
import { firstOfEach } from '@convo/kit/mongo';
import type { NoteDoc } from '../db/models';
import type { TicketsDatabase } from '../db/repositories';
import type { TenantUsers } from './users';

const MAX_NOTE = 10_000;
/** listNotes answers pages of this many notes, as listTickets does. */
export const NOTES_PAGE_SIZE = 20;
const MAX_ID_FRONT = 200;
/** How long a repeat of an idFront waits for the concurrent call that holds it to insert its note. */
const KEY_WAIT_MS = 2_000;

/** Internal notes on a ticket, for agents; never sent to the contact. */
export class NotesService {
  constructor(
    private readonly repo: TicketsDatabase,
    private readonly users: TenantUsers,
  ) {}

  /**
   * `idFront` identifies the note for good, per tenant: a repeat, even concurrent, answers the note
   * the first call created. The claim is a unique `_id` insert, because FerretDB applies a
   * conditional update (findOneAndUpdate with upsert) as read-then-write, which two concurrent
   * calls can both win.
   */
  async createNote(req: proto.tickets.CreateNoteRequest__Output): Promise<proto.tickets.Note> {
    const notes = req.notes.trim();
    const idFront = req.idFront.trim();
    new Issues()
      .check(!!notes && notes.length <= MAX_NOTE, 'notes', `is required, at most ${MAX_NOTE} characters`)
      .check(idFront.length <= MAX_ID_FRONT, 'idFront', `at most ${MAX_ID_FRONT} characters`)
      .throwIfAny('Invalid note');

    const [ticket] = await Promise.all([
      this.repo.tickets.findTicket(req.tenantId, req.ticketId),
      req.userId !== undefined && this.users.requireUser(req.tenantId, req.userId),
    ]);
    if (!ticket) throw notFound('ticket');

    const id = await this.repo.nextId('note');
    const keyId = idFront ? `${req.tenantId}:${idFront}` : '';
    if (keyId && !(await this.repo.claims.noteKeys.claim({ _id: keyId, noteId: id, createdAt: new Date() }))) {
      const key = await this.repo.claims.noteKeys.find(keyId);
      const existing = key && (await this.awaitNote(req.tenantId, key.noteId));
      if (!existing) throw conflict('ERR_NOTE_CREATION_IN_PROGRESS', 'A note with this idFront is being created; retry');
      return toNote(existing);
    }
    const doc: NoteDoc = {
      _id: id,
      tenantId: req.tenantId,
      ticketId: ticket._id,
      userId: req.userId ?? null,
      notes,
      idFront,
      createdAt: new Date(),
    };
    try {
      await this.repo.notes.insertNote(doc);
    } catch (err) {
      // Nothing was stored: free the idFront so that a retry creates the note.
      if (keyId) await this.repo.claims.noteKeys.release(keyId, { noteId: id });
      throw err;
    }
    return toNote(doc);
  }

  /** A note's text, changed; another tenant's note is NOT_FOUND. */
  async updateNote(req: proto.tickets.UpdateNoteRequest__Output): Promise<proto.tickets.Note> {
    const notes = req.notes.trim();
    if (!notes || notes.length > MAX_NOTE)
      throw validation('Invalid note', [{ field: 'notes', message: `is required, at most ${MAX_NOTE} characters` }]);
    const updated = await this.repo.notes.updateNote(req.tenantId, req.noteId, notes);
    if (!updated) throw notFound('note');
    return toNote(updated);
  }

  /** The notes of one ticket of the tenant, oldest first. */
  async listNotes(req: proto.tickets.ListNotesRequest__Output): Promise<proto.tickets.NotePage> {
    const page = Math.max(1, req.page || 1);
    const [ticket, notes, count] = await Promise.all([
      this.repo.tickets.findTicket(req.tenantId, req.ticketId),
      this.repo.notes.listNotes(req.tenantId, req.ticketId, (page - 1) * NOTES_PAGE_SIZE, NOTES_PAGE_SIZE),
      this.repo.notes.countNotes(req.tenantId, req.ticketId),
    ]);
    if (!ticket) throw notFound('ticket');
    return { notes: notes.map(toNote), count, hasMore: page * NOTES_PAGE_SIZE < count, page, pageSize: NOTES_PAGE_SIZE };
  }

  /**
   * The first notes of each of these tickets, oldest first, at most `limit` each (GraphQL's
   * Ticket.notes, a page of tickets at once): the tenant's only, one query for all unless a ticket
   * has more (firstOfEach).
   */
  firstNotesOf(tenantId: number, ticketIds: readonly number[], limit = 100): Promise<Map<number, NoteDoc[]>> {
    const each = Math.min(Math.max(1, limit), 100);
    return firstOfEach(
      ticketIds,
      each,
      (n: NoteDoc) => n.ticketId,
      (ids, max) => this.repo.notes.notesOf(tenantId, ids, max),
    );
  }

  /** The note once it exists, or null after `waitMs` (its creator failed or is stuck). */
  private async awaitNote(tenantId: number, id: number, waitMs = KEY_WAIT_MS) {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const note = await this.repo.notes.findNote(tenantId, id);
      if (note || Date.now() >= deadline) return note;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

export function toNote(n: NoteDoc): proto.tickets.Note {
  return {
    id: n._id,
    tenantId: n.tenantId,
    ticketId: n.ticketId,
    userId: n.userId ?? undefined,
    notes: n.notes,
    idFront: n.idFront,
    createdAt: new Date(n.createdAt).toISOString(),
    updatedAt: new Date(n.updatedAt ?? n.createdAt).toISOString(),
  };
}
