import { Issues, validation, type proto } from '@convo/kit';
import { scalarStr, str } from '../json';

/**
 * What the bridge contracts of this project share (marketplace bridge, inbound-mail bridge; see
 * docs/channels/webchat-email-marketplace.md): their events are JSON objects posted to
 * `/webhooks/engine/{channelId}`, one event or an array of them, with files as
 * `attachments: [{ url, mimeType, fileName }]`.
 */
export type BridgeEvent = Record<string, unknown>;

export interface BridgeAttachment {
  url: string;
  mimeType: string;
  fileName: string;
}

/** The events of a bridge body. A malformed body is the bridge's bug: it is told (400), not ignored. */
export function bridgeEvents(body: unknown, bridge: string): BridgeEvent[] {
  const items = Array.isArray(body) ? body : [body];
  if (!items.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e))) {
    throw validation(`${bridge} events must be JSON objects`, [
      { field: '(body)', message: 'must be an event object or an array of them' },
    ]);
  }
  return items as BridgeEvent[];
}

/** Reads an event's text fields (a number is taken as its digits), naming every bad one at once. */
export function fieldsOf<R extends string, O extends string>(
  event: BridgeEvent,
  bridge: string,
  required: readonly R[],
  optional: readonly O[],
) {
  const issues = new Issues();
  for (const k of required) issues.check(!!scalarStr(event[k]), k, 'is required (a string)');
  for (const k of optional)
    issues.check(event[k] == null || typeof event[k] === 'string' || typeof event[k] === 'number', k, 'must be a string');
  issues.throwIfAny(`Invalid ${bridge} ${String(event.type)} event`);
  return Object.fromEntries([...required, ...optional].map((k) => [k, scalarStr(event[k])])) as Record<R | O, string>;
}

export function attachmentsOf(event: BridgeEvent, bridge: string): BridgeAttachment[] {
  const list = event.attachments ?? [];
  const ok =
    Array.isArray(list) &&
    list.every(
      (a) => typeof a === 'object' && a !== null && typeof (a as BridgeAttachment).url === 'string' && (a as BridgeAttachment).url,
    );
  if (!ok)
    throw validation(`Invalid ${bridge} attachments`, [{ field: 'attachments', message: 'must be a list of { url, mimeType, fileName }' }]);
  return (list as Partial<BridgeAttachment>[]).map((a) => ({ url: a.url!, mimeType: str(a.mimeType), fileName: str(a.fileName) }));
}

/** Epoch milliseconds or an ISO 8601 string; the time of arrival when absent or unreadable. */
export function timestampOf(value: unknown): number {
  const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : Date.now();
}

export const mediaTypeOf = (mimeType: string): string => {
  const kind = mimeType.split('/')[0];
  return kind === 'image' || kind === 'video' || kind === 'audio' ? kind : 'document';
};

/**
 * An InboundEvent carries one file: the first attachment rides on the message itself (the text is
 * its caption); each further one becomes its own message with the provider id `<id>#<n>`, so a
 * repeated delivery of the event is still stored once. `typeOf` names the message type of each.
 */
export function withAttachments(
  message: proto.channelEngines.InboundEvent,
  attachments: BridgeAttachment[],
  typeOf: (a: BridgeAttachment | undefined) => string,
): proto.channelEngines.InboundEvent[] {
  const [first, ...rest] = attachments;
  return [
    { ...message, messageType: typeOf(first), ...(first ? mediaOf(first) : {}) },
    ...rest.map((a, i) => ({
      ...message,
      body: '',
      providerMessageId: `${message.providerMessageId}#${i + 2}`,
      messageType: typeOf(a),
      ...mediaOf(a),
    })),
  ];
}

const mediaOf = (a: BridgeAttachment) => ({ mediaUrl: a.url, mimeType: a.mimeType, fileName: a.fileName });
