import { list, obj, scalarStr, type Json } from '../json';

/**
 * What Meta says of a waba account's message templates, from the same webhook POSTs as messages
 * (`entry[].id` is the WhatsApp Business Account id, the channel's wabaId):
 *
 * - `message_template_status_update`: `{ event, message_template_name, message_template_language,
 *   message_template_category?, reason }`; `event` is the template's new status (APPROVED, REJECTED,
 *   PAUSED, DISABLED, PENDING_DELETION, ARCHIVED…).
 * - `template_category_update`: a completed change `{ previous_category, new_category }`. Meta also
 *   announces an impending one (`correct_category`, `new_category` = the current category,
 *   `category_update_timestamp`), which changes nothing yet and is skipped.
 */
export interface TemplateChange {
  wabaId: string;
  name: string;
  language: string;
  /** The new status, '' when the change is of the category only. */
  status: string;
  /** The new category, '' when the change does not name one. */
  category: string;
  /** Meta's time of the change (entry.time), in ms; 0 when absent. */
  timeMs: number;
}

export function parseTemplateChanges(body: unknown): TemplateChange[] {
  const envelope = obj(body);
  if (envelope.object !== 'whatsapp_business_account') return [];
  return list(envelope.entry)
    .map(obj)
    .flatMap((entry) =>
      list(entry.changes)
        .map(obj)
        .map((change) => templateChange(scalarStr(entry.id), Number(entry.time) * 1000 || 0, scalarStr(change.field), obj(change.value)))
        .filter((c): c is TemplateChange => c !== null),
    );
}

function templateChange(wabaId: string, timeMs: number, field: string, value: Json): TemplateChange | null {
  const name = scalarStr(value.message_template_name);
  const language = scalarStr(value.message_template_language);
  if (!wabaId || !name || !language) return null;
  const base = { wabaId, name, language, timeMs };
  if (field === 'message_template_status_update') {
    const status = scalarStr(value.event).toUpperCase();
    return status ? { ...base, status, category: scalarStr(value.message_template_category).toUpperCase() } : null;
  }
  if (field === 'template_category_update') {
    // Only a completed change names the previous category; an impending one is a notice.
    if (!scalarStr(value.previous_category)) return null;
    const category = scalarStr(value.new_category).toUpperCase();
    return category ? { ...base, status: '', category } : null;
  }
  return null;
}
