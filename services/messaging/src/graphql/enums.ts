import { domainEnum } from '@convo/kit/graphql/enums';
import { registerEnumType } from 'type-graphql';
import { MESSAGE_STATUSES } from '../domain/inspection.service';
import { ATTEMPT_OUTCOMES, OUTBOX_STATUSES, OUTBOX_TARGETS, type WebhookMethod } from '../outbox/outbox.models';

export const MessageStatusEnum = domainEnum(
  MESSAGE_STATUSES,
  'MessageStatus',
  'queued → sent → delivered → read, or failed (incoming messages are delivered).',
);

export const MessageDirectionEnum = domainEnum(['in', 'out'] as const, 'MessageDirection', 'in: from the contact; out: to the contact.');

export const WebhookDeliveryStatusEnum = domainEnum(
  OUTBOX_STATUSES,
  'WebhookDeliveryStatus',
  'pending: waiting for (another) attempt; delivered: a 2xx; gone: the receiver answered 410; dead: still failing after the retry window; canceled: nowhere to deliver any more; fanned_out: split into one event per integration.',
);

export const WebhookTargetEnum = domainEnum(
  OUTBOX_TARGETS,
  'WebhookTarget',
  "channel: the channel's webhookUrl; integrations: every integration of the channel (fanned out); integration: one integration's callback URL.",
);

export const WebhookAttemptOutcomeEnum = domainEnum(ATTEMPT_OUTCOMES, 'WebhookAttemptOutcome', 'How one attempt ended.');

/** The body's `method`: its dotted values are not GraphQL names, so they are mapped (the payload keeps them). */
export const WebhookMethodEnum = {
  message: 'message',
  message_status: 'message.status',
  service_status: 'service.status',
  reaction: 'reaction',
  edit: 'edit',
  delete: 'delete',
} as const satisfies Record<string, WebhookMethod>;
registerEnumType(WebhookMethodEnum, {
  name: 'WebhookMethod',
  description: 'The `method` of the webhook body: message, message.status, service.status, reaction, edit, delete.',
});
