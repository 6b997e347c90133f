import { forbidden, graphqlCallerOf, DomainError } from '@convo/kit';

/**
 * Who sets a channel's fields. `operator`: the platform (the super-admin token: the REST tenant
 * API, PUT /whatsapp/{id}, GraphQL with that token). `tenant`: a tenant administrator's console
 * session on GraphQL (and any caller the gateway did not name: the least trusted).
 */
export type ChannelEditor = 'operator' | 'tenant';

/**
 * Fields only the operator sets. The engine server a channel talks to (its URL and token) is
 * platform infrastructure: CONVENTIONS trusts provider base URLs because the operator sets them,
 * so a tenant may not (it would make the platform call any address: SSRF). The connection status
 * is the engine's report, and a hybrid link is made through the REST tenant API only.
 */
export const OPERATOR_ONLY_CHANNEL_FIELDS = [
  'engineUrl',
  'engineToken',
  'status',
  'hybridMode',
  'linkedChannelId',
  'linkToWhatsappId',
] as const;

const given = (v: unknown) => v !== undefined && v !== null && v !== '';

/** 403 ERR_FORBIDDEN, naming each field, when a tenant administrator sets an operator's field; nothing is written. */
export function assertChannelFieldsFor(
  by: ChannelEditor,
  req: Partial<Record<(typeof OPERATOR_ONLY_CHANNEL_FIELDS)[number], unknown>>,
): void {
  if (by === 'operator') return;
  const refused = OPERATOR_ONLY_CHANNEL_FIELDS.filter((f) => given(req[f]));
  if (!refused.length) return;
  throw new DomainError(
    'forbidden',
    'ERR_FORBIDDEN',
    `Only the platform operator sets ${refused.join(', ')}`,
    refused.map((field) => ({ field, message: 'is set by the platform operator only' })),
  );
}

/** The editor a GraphQL resolver acts for; a tenant session reaches its own tenant only (the gateway checks it too). */
export function channelEditorOf(context: unknown, tenantId: number): ChannelEditor {
  const caller = graphqlCallerOf(context);
  if (caller.kind === 'platform') return 'operator';
  if (caller.kind === 'tenant' && caller.tenantId !== tenantId) throw forbidden(`This session reaches tenant ${caller.tenantId} only`);
  return 'tenant';
}
