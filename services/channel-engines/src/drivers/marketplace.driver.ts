import { providerFailed, validation, type proto } from '@convo/kit';
import { attachmentsOf, bridgeEvents, fieldsOf, mediaTypeOf, timestampOf, withAttachments, type BridgeEvent } from './bridge';
import type { Delivered, Driver, DriverSettings, Outbound } from './driver';
import { requestJson } from './http';

/** What a ticket contact key may be (tickets' OpenForContact): the conversation id becomes the contact. */
const CONVERSATION_ID = /^[0-9A-Za-z_.@:-]{1,128}$/;
/** Delivery states a bridge may report; anything else is not ours to apply and yields no event. */
const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

/**
 * marketplace: marketplaces have no common messaging API, so each is reached through a bridge
 * that speaks this project's marketplace bridge contract (docs/channels/webchat-email-marketplace.md):
 *
 *   POST {engineUrl}/messages   Authorization: Bearer {engineToken}
 *   { conversationId, text, attachments: [{ url, mimeType, fileName }], reference } → 2xx { id }
 *
 * and posts the buyers' messages and delivery statuses to /webhooks/engine/{channelId}.
 * `to` is the marketplace's conversation (or buyer) id.
 */
export class MarketplaceDriver implements Driver {
  readonly kind = 'marketplace';

  constructor(private readonly settings: DriverSettings) {}

  async send({ channel, to, content, reference }: Outbound): Promise<Delivered> {
    // No environment fallback: ENGINE_URL is a WhatsApp engine's, never a marketplace bridge.
    const base = channel.engineUrl.replace(/\/+$/, '');
    if (!base) throw providerFailed(`marketplace channel ${channel.id} has no bridge URL (the channel's engineUrl)`);
    const { body } = await requestJson(`${base}/messages`, {
      body: {
        conversationId: to,
        text: content.text,
        attachments: content.mediaUrl ? [{ url: content.mediaUrl, mimeType: content.mimeType, fileName: content.fileName }] : [],
        reference,
      },
      headers: channel.engineToken ? { authorization: `Bearer ${channel.engineToken}` } : {},
      timeoutMs: this.settings.timeoutMs,
      provider: 'marketplace bridge',
    });
    const id = (body as { id?: unknown } | null)?.id;
    if ((typeof id !== 'string' && typeof id !== 'number') || id === '') throw providerFailed('marketplace bridge answered without id');
    return { providerMessageId: String(id) };
  }

  parseInbound(_channel: Outbound['channel'], body: unknown): proto.channelEngines.InboundEvent[] {
    return bridgeEvents(body, 'marketplace').flatMap(parseEvent);
  }
}

function parseEvent(event: BridgeEvent): proto.channelEngines.InboundEvent[] {
  const rawJson = JSON.stringify(event);
  if (event.type === 'message') {
    const f = fieldsOf(event, 'marketplace', ['conversationId', 'id'], ['buyerName', 'text']);
    const message = {
      kind: 'message',
      from: f.conversationId,
      contactName: f.buyerName,
      providerMessageId: f.id,
      body: f.text,
      timestampMs: timestampOf(event.timestamp),
      rawJson,
    };
    if (!CONVERSATION_ID.test(f.conversationId)) {
      throw validation('Invalid marketplace message', [
        { field: 'conversationId', message: 'must be letters, digits and _.@:- (at most 128)' },
      ]);
    }
    const attachments = attachmentsOf(event, 'marketplace');
    if (!f.text && !attachments.length)
      throw validation('Empty marketplace message', [{ field: 'text', message: 'is required without attachments' }]);
    return withAttachments(message, attachments, (a) => (a ? mediaTypeOf(a.mimeType) : 'text'));
  }
  if (event.type === 'status') {
    const f = fieldsOf(event, 'marketplace', ['id', 'status'], ['error']);
    if (!STATUSES.has(f.status)) return [];
    return [
      { kind: 'status', providerMessageId: f.id, status: f.status, error: f.error, timestampMs: timestampOf(event.timestamp), rawJson },
    ];
  }
  return [];
}
