import { withoutPassword, type proto } from '@convo/kit';

/**
 * Provider credentials and signing secrets only to the service that uses them (CONVENTIONS "Inside
 * the mesh"). A channel read over gRPC carries, of its secrets, only those its verified caller
 * needs; the others are emptied (the SMTP password in `engineUrl` masked).
 */
type Secret = 'bmToken' | 'engineToken' | 'pageToken' | 'webhookSecret' | 'engineUrlPassword';

const ALL: readonly Secret[] = ['bmToken', 'engineToken', 'pageToken', 'webhookSecret', 'engineUrlPassword'];

export const SECRETS_OF: Readonly<Record<string, readonly Secret[]>> = {
  // Hands every provider credential to channel-engines with each delivery; its relay signs webhooks.
  messaging: ALL,
  // Checks engine webhooks against engineToken; shows the operator the webhook signing secret
  // (tenant API).
  gateway: ['engineToken', 'webhookSecret'],
  // Calls Meta's Profile and Personas APIs with the page token.
  'social-config': ['pageToken'],
};

/** The channel as `caller` may see it. */
export function channelFor<C extends proto.tenants.Channel | null | undefined>(caller: string, channel: C): C {
  if (!channel) return channel;
  const allowed = new Set(SECRETS_OF[caller] ?? []);
  if (allowed.size === ALL.length) return channel;
  const c: proto.tenants.Channel = { ...channel };
  if (!allowed.has('bmToken')) c.bmToken = '';
  if (!allowed.has('engineToken')) c.engineToken = '';
  if (!allowed.has('pageToken')) c.pageToken = '';
  if (!allowed.has('webhookSecret')) {
    c.webhookSecret = '';
    c.webhookSecretPrevious = '';
    c.webhookSecretPreviousUntil = '';
  }
  if (!allowed.has('engineUrlPassword') && c.engineUrl) c.engineUrl = withoutPassword(c.engineUrl);
  return c as C;
}
