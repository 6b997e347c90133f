import { createHmac } from 'node:crypto';
import type { Reply } from './http';

// Meta's webhook deliveries as Meta sends them (reference/provider-formats.md §1.3 and §2.4):
// envelopes built here, signed with the app secret over the exact bytes posted.

export const wabaEnvelope = (phoneNumberId: string, value: { contacts?: unknown[]; messages?: unknown[]; statuses?: unknown[] }) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: 'WABA-1',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550000000', phone_number_id: phoneNumberId },
            ...value,
          },
        },
      ],
    },
  ],
});

export const wabaText = (from: string, id: string, body: string, timestamp = '1718000000') => ({
  from,
  id,
  timestamp,
  type: 'text',
  text: { body },
});

export const wabaButtonReply = (from: string, id: string, choice: { id: string; title: string }, context: string) => ({
  from,
  id,
  timestamp: '1718000001',
  type: 'interactive',
  context: { from: '15550000000', id: context },
  interactive: { type: 'button_reply', button_reply: choice },
});

export const wabaStatus = (id: string, status: string, recipient: string, timestamp: string) => ({
  id,
  status,
  timestamp,
  recipient_id: recipient,
});

/** A change of the account's templates (`message_template_status_update`, `template_category_update`): `entry[].id` is the WABA id. */
export const wabaTemplateChange = (
  wabaId: string,
  field: string,
  value: Record<string, unknown>,
  time = Math.floor(Date.now() / 1000),
) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: wabaId, time, changes: [{ field, value }] }],
});

export const messengerEnvelope = (pageId: string, messaging: unknown[]) => ({
  object: 'page',
  entry: [{ id: pageId, time: 1718000000000, messaging }],
});

export const hubSignature = (raw: string, secret: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

/** Posts the exact bytes given (Meta signs its escaped-unicode form, so the test must not re-serialise). */
export async function postMeta(gatewayUrl: string, raw: string, signature?: string): Promise<Reply> {
  const res = await fetch(`${gatewayUrl}/webhooks/meta`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body: raw,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
