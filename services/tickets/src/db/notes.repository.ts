import { anyOf } from '@convo/kit/mongo';
import type { Models, NoteDoc, PauseDoc } from './models';

/** A ticket's notes and the log of its pauses. */
export class NotesRepository {
  constructor(private readonly models: Models) {}

  async insertNote(note: NoteDoc): Promise<void> {
    await this.models.Note.create(note);
  }

  findNote(tenantId: number, id: number) {
    return this.models.Note.findOne({ _id: id, tenantId }).lean<NoteDoc>().exec();
  }

  updateNote(tenantId: number, id: number, notes: string) {
    return this.models.Note.findOneAndUpdate({ _id: id, tenantId }, { $set: { notes, updatedAt: new Date() } }, { returnDocument: 'after' })
      .lean<NoteDoc>()
      .exec();
  }

  /** A ticket's notes, oldest first (index: tenantId, ticketId, createdAt). */
  listNotes(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Note.find({ tenantId, ticketId }).sort({ createdAt: 1, _id: 1 }).skip(skip).limit(limit).lean<NoteDoc[]>().exec();
  }

  /** The notes of these tickets of the tenant by ticket, oldest first (the same index), at most `max`. */
  notesOf(tenantId: number, ticketIds: readonly number[], max: number) {
    return this.models.Note.find({ tenantId, ticketId: anyOf(ticketIds) })
      .sort({ ticketId: 1, createdAt: 1, _id: 1 })
      .limit(max)
      .lean<NoteDoc[]>()
      .exec();
  }

  countNotes(tenantId: number, ticketId: number) {
    return this.models.Note.countDocuments({ tenantId, ticketId }).exec();
  }

  // ---- the pause log ---------------------------------------------------------------------------

  async insertPause(doc: PauseDoc): Promise<void> {
    await this.models.Pause.create(doc);
  }

  /** Ends the ticket's open pause (if any) in the log. */
  async endPauses(tenantId: number, ticketId: number, endedBy: 'end' | 'close', at: Date): Promise<void> {
    await this.models.Pause.updateMany({ tenantId, ticketId, endedAt: null }, { $set: { endedAt: at, endedBy } }).exec();
  }

  listPauses(tenantId: number, ticketId: number, skip: number, limit: number) {
    return this.models.Pause.find({ tenantId, ticketId }).sort({ startedAt: 1, _id: 1 }).skip(skip).limit(limit).lean<PauseDoc[]>().exec();
  }

  countPauses(tenantId: number, ticketId: number) {
    return this.models.Pause.countDocuments({ tenantId, ticketId }).exec();
  }
}
