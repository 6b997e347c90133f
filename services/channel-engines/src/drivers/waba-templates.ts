import { providerFailed, validation, type proto } from '@convo/kit';
import type { DriverSettings } from './driver';
import { graphPages, segment } from './meta-graph';
import { type RecordedChange, templateKey, type TemplateChangesRepository } from '../db/template-changes.repository';
import type { TemplateChange } from '../inbound/meta-templates';

type Template = proto.channelEngines.Template;
type Channel = proto.channelEngines.ChannelTarget__Output;

/** Templates asked for per page (Meta's `limit`), and pages read at most: 5,000 templates. */
const PAGE_SIZE = 100;
const MAX_PAGES = 50;
/** Channels whose catalog is kept at once; the least recently read goes first. */
const MAX_CHANNELS = 5_000;

/** One component of a template as `GET /{waba-id}/message_templates` answers it. */
interface MetaComponent {
  type?: string;
  format?: string;
  text?: string;
  buttons?: Array<{ type?: string; url?: string; text?: string }>;
}

interface MetaTemplate {
  name?: string;
  language?: string;
  status?: string;
  category?: string;
  components?: MetaComponent[];
}

interface Catalog {
  templates: Template[];
  fetchedAt: number;
  /** The account and token it was read with: another pair reads it again. */
  key: string;
}

/**
 * The message templates of waba channels, read from Meta's `GET /{waba-id}/message_templates`
 * (every page, following `paging.cursors.after` while `paging.next` says there is more) and kept
 * per channel. A read asks Meta again only when `refresh` is set and the copy is at least
 * `cacheMs` old (a send naming a template the copy lacks or has unapproved), so a burst of sends
 * of an unknown name costs Meta one call per `cacheMs`. Concurrent reads of one channel share one call.
 *
 * Meta's template webhooks (status and category changes, `record`) apply at once: every read lays
 * the changes recorded after its copy was read from Meta over it (one primary-key read of the
 * account's changes, shared by every replica), and a change naming a template the copy lacks (one
 * just approved) makes a `refresh` read Meta again whatever the copy's age.
 */
export class TemplateCatalogs {
  private readonly catalogs = new Map<number, Catalog>();
  private readonly loading = new Map<number, Promise<Catalog>>();

  constructor(
    private readonly settings: DriverSettings,
    private readonly cacheMs: number,
    private readonly changes?: TemplateChangesRepository,
  ) {}

  /** Meta's template webhooks: recorded for every replica's next read (`list`). */
  async record(changes: TemplateChange[]): Promise<void> {
    await this.changes?.record(changes);
  }

  async list(channel: Channel, refresh: boolean): Promise<Catalog> {
    if (channel.type !== 'waba') {
      throw validation(
        `Templates belong to official (waba) channels; channel ${channel.id} is ${channel.type}`,
        [{ field: 'channel', message: `is ${channel.type}, not waba` }],
        'ERR_CHANNEL_MISMATCH',
      );
    }
    if (!channel.wabaId) throw providerFailed(`waba channel ${channel.id} has no wabaId (the WhatsApp Business Account id)`);
    if (!channel.bmToken) throw providerFailed(`waba channel ${channel.id} has no bmToken (the business token)`);
    const key = `${channel.wabaId}|${channel.bmToken}`;
    const changes = (await this.changes?.of(channel.wabaId)) ?? {};
    const kept = this.catalogs.get(channel.id);
    const fresh = kept && kept.key === key && (!refresh || (Date.now() - kept.fetchedAt < this.cacheMs && !namesUnknown(kept, changes)));
    if (fresh) {
      // Most recently read last: the map's first entry is the one to drop.
      this.catalogs.delete(channel.id);
      this.catalogs.set(channel.id, kept);
      return withChanges(kept, changes);
    }
    let load = this.loading.get(channel.id);
    if (!load) {
      load = this.fetch(channel, key).finally(() => this.loading.delete(channel.id));
      this.loading.set(channel.id, load);
    }
    const catalog = await load;
    this.catalogs.delete(channel.id);
    this.catalogs.set(channel.id, catalog);
    while (this.catalogs.size > MAX_CHANNELS) this.catalogs.delete(this.catalogs.keys().next().value!);
    return withChanges(catalog, changes);
  }

  /**
   * The category of the template a send names (name and language as in its body), '' when the
   * catalog has no such template: the kept copy, read from Meta only when there is none yet.
   */
  async categoryOf(channel: Channel, name: string, language: string): Promise<string> {
    const { templates } = await this.list(channel, false);
    return templates.find((t) => t.name === name && t.language === language)?.category ?? '';
  }

  private async fetch(channel: Channel, key: string): Promise<Catalog> {
    const templates: Template[] = [];
    const pages = graphPages(this.settings, 'waba', `${segment(channel.wabaId)}/message_templates`, channel.bmToken, {
      maxPages: MAX_PAGES,
      query: { fields: 'name,language,status,category,components', limit: String(PAGE_SIZE) },
    });
    for await (const body of pages) {
      if (!Array.isArray(body?.data)) throw providerFailed('waba: message_templates answered without a data list');
      for (const t of body.data as MetaTemplate[]) {
        const template = templateOf(t);
        if (template) templates.push(template);
      }
    }
    return { templates, fetchedAt: Date.now(), key };
  }
}

/** The changes that reached us after the copy was read from Meta: the copy does not know them yet. */
const newerThan = (catalog: Catalog, changes: Record<string, RecordedChange>) =>
  Object.entries(changes).filter(([, c]) => c.receivedAt > catalog.fetchedAt);

/** A recent change names a template the copy lacks (one approved since): only Meta knows its components. */
const namesUnknown = (catalog: Catalog, changes: Record<string, RecordedChange>) => {
  const known = new Set(catalog.templates.map((t) => templateKey(t.name ?? '', t.language ?? '')));
  return newerThan(catalog, changes).some(([key]) => !known.has(key));
};

/** The copy with the status and category of each template that changed since it was read. */
function withChanges(catalog: Catalog, changes: Record<string, RecordedChange>): Catalog {
  const recent = new Map(newerThan(catalog, changes));
  if (!recent.size) return catalog;
  const templates = catalog.templates.map((t) => {
    const change = recent.get(templateKey(t.name ?? '', t.language ?? ''));
    return change ? { ...t, status: change.status || t.status, category: change.category || t.category } : t;
  });
  return { ...catalog, templates };
}

/** `{{1}}`, `{{2}}`… or named `{{order_id}}`: each distinct placeholder is one parameter. */
export function placeholders(text: string | undefined): number {
  return new Set(text?.match(/\{\{\s*[\w.]+\s*\}\}/g)?.map((p) => p.replace(/\s/g, '')) ?? []).size;
}

/** A catalog entry with the parameters each component takes; null for an entry without a name. */
export function templateOf(t: MetaTemplate): Template | null {
  if (typeof t?.name !== 'string' || !t.name || typeof t.language !== 'string') return null;
  const components: proto.channelEngines.TemplateComponent[] = [];
  let bodyText = '';
  for (const c of Array.isArray(t.components) ? t.components : []) {
    const type = String(c?.type ?? '').toUpperCase();
    if (type === 'HEADER') {
      const format = String(c.format ?? 'TEXT').toUpperCase();
      // A media or location header takes its media (or place) as its one parameter.
      components.push({ type: 'header', index: 0, format, parameters: format === 'TEXT' ? placeholders(c.text) : 1 });
    } else if (type === 'BODY') {
      bodyText = typeof c.text === 'string' ? c.text : '';
      components.push({ type: 'body', index: 0, format: '', parameters: placeholders(c.text) });
    } else if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
      c.buttons.forEach((b, index) => {
        const format = String(b?.type ?? '').toUpperCase();
        // A dynamic URL takes its suffix, a copy-code button its code; the others take none.
        const parameters = format === 'URL' ? placeholders(b.url) : format === 'COPY_CODE' ? 1 : 0;
        components.push({ type: 'button', index, format, parameters });
      });
    }
  }
  return {
    name: t.name,
    language: t.language,
    category: typeof t.category === 'string' ? t.category : '',
    status: typeof t.status === 'string' ? t.status : '',
    components,
    bodyText,
  };
}
