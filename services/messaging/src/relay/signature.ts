import { createHmac } from 'node:crypto';

/** A Standard Webhooks secret, "whsec_" + base64: the HMAC key is the decoded part. */
const keyOf = (secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/**
 * The `webhook-signature` header of the Standard Webhooks specification: `v1,` + base64
 * HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, one per secret, space-separated (during
 * a rotation both the new and the previous secret sign, so receivers may switch at their pace).
 */
export function webhookSignature(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`)
    .join(' ');
}
