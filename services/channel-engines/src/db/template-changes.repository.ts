import { Schema, type Connection } from 'mongoose';
import type { TemplateChange } from '../inbound/meta-templates';

/** One template's latest change as recorded: what it set, Meta's time of it, and when it reached us. */
export interface RecordedChange {
  /** Absent when only the category changed, and the other way round. */
  status?: string;
  category?: string;
  timeMs: number;
  receivedAt: number;
}

/** A WhatsApp Business Account's template changes, keyed by templateKey(name, language). */
interface TemplateChangesDoc {
  _id: string;
  templates: Record<string, RecordedChange>;
}

/** A template's key in the document: name and language, with what MongoDB reads in a field path escaped. */
export const templateKey = (name: string, language: string) =>
  `${name}|${language}`.replace(/[%.$]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);

/**
 * Meta's template status and category changes, one document per WhatsApp Business Account
 * (`_id` its id: one primary-key read per catalog read, on MongoDB and FerretDB alike). Every
 * channel-engines replica reads them, so a change that reached one is applied by all at once.
 */
export class TemplateChangesRepository {
  private readonly Changes;

  constructor(conn: Connection) {
    const schema = new Schema<TemplateChangesDoc>(
      { _id: String, templates: { type: Schema.Types.Mixed, default: {} } },
      { versionKey: false, minimize: false },
    );
    this.Changes = conn.model<TemplateChangesDoc>('TemplateChanges', schema, 'template_changes');
  }

  async of(wabaId: string): Promise<Record<string, RecordedChange>> {
    const doc = await this.Changes.findById(wabaId).lean<TemplateChangesDoc>().exec();
    return doc?.templates ?? {};
  }

  /**
   * Records each change over the template's earlier one, field by field (a category change keeps
   * the status and the other way round). A change older by Meta's time than the recorded one (a
   * late redelivery) is skipped. Template webhooks are rare: a read before each write is cheap.
   */
  async record(changes: TemplateChange[]): Promise<void> {
    const now = Date.now();
    for (const c of changes) {
      const key = templateKey(c.name, c.language);
      const kept = (await this.of(c.wabaId))[key];
      if (kept && c.timeMs && kept.timeMs > c.timeMs) continue;
      const set: Record<string, unknown> = { [`templates.${key}.timeMs`]: c.timeMs, [`templates.${key}.receivedAt`]: now };
      if (c.status) set[`templates.${key}.status`] = c.status;
      if (c.category) set[`templates.${key}.category`] = c.category;
      await this.Changes.updateOne({ _id: c.wabaId }, { $set: set }, { upsert: true }).exec();
    }
  }
}
