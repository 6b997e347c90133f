import { providerFailed } from '@convo/kit';
import type { Delivered, Driver, DriverSettings, NumberCheck, Outbound } from './driver';
import { postJson } from './http';

/**
 * engine_a: a Baileys-based engine server. Its HTTP contract (README, "Engine contracts") mirrors
 * Baileys' `sendMessage(jid, content, options)`: POST {base}/messages with
 * `{ jid, content, options: { messageId } }`, answered with the WAMessage whose `key.id` is the id.
 */
export class EngineADriver implements Driver {
  readonly kind = 'engine_a';

  constructor(private readonly settings: DriverSettings) {}

  async send(msg: Outbound): Promise<Delivered> {
    const body = await this.post(msg.channel, '/messages', {
      jid: `${msg.to}@s.whatsapp.net`,
      content: contentOf(msg),
      options: { messageId: msg.reference },
    });
    const id = (body as { key?: { id?: unknown } } | null)?.key?.id;
    if (typeof id !== 'string' || !id) throw providerFailed('engine_a answered without key.id');
    return { providerMessageId: id };
  }

  /** Baileys' `onWhatsApp(...jids)`: POST {base}/contacts/check → `[{ jid, exists }]`. */
  async checkNumber(channel: Outbound['channel'], number: string): Promise<NumberCheck> {
    const body = await this.post(channel, '/contacts/check', { jids: [`${number}@s.whatsapp.net`] });
    const first = Array.isArray(body) ? (body[0] as { exists?: unknown; jid?: unknown } | undefined) : undefined;
    if (!first || typeof first.exists !== 'boolean') throw providerFailed('engine_a answered the number check without exists');
    return { exists: first.exists, networkId: typeof first.jid === 'string' ? first.jid : '' };
  }

  private async post(channel: Outbound['channel'], path: string, payload: unknown): Promise<unknown> {
    const base = (channel.engineUrl || this.settings.engineUrl(this.kind)).replace(/\/+$/, '');
    if (!base) throw providerFailed('engine_a has no engine URL (channel engineUrl, ENGINE_URL_ENGINE_A or ENGINE_URL)');
    const { body } = await postJson(`${base}${path}`, payload, {
      headers: channel.engineToken ? { authorization: `Bearer ${channel.engineToken}` } : {},
      timeoutMs: this.settings.timeoutMs,
      provider: this.kind,
    });
    return body;
  }
}

function contentOf({ content }: Outbound): Record<string, unknown> {
  if (!content.mediaUrl) return { text: content.text };
  const kind = content.mimeType.split('/')[0];
  const caption = content.text || undefined;
  if (kind === 'image' || kind === 'video') return { [kind]: { url: content.mediaUrl }, caption, mimetype: content.mimeType };
  if (kind === 'audio') return { audio: { url: content.mediaUrl }, mimetype: content.mimeType };
  return { document: { url: content.mediaUrl }, mimetype: content.mimeType, fileName: content.fileName, caption };
}
