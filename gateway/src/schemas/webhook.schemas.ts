import Type from 'typebox';
import { StringEnum } from './common';
import { Envelope, Exact } from './envelopes';

/** The answers of the providers' webhooks (inbound.routes.ts, payment-webhooks.routes.ts). */

export const InboundResult = Envelope(
  Exact({
    received: Type.Integer({ description: 'Events in the body' }),
    results: Type.Array(
      Exact({
        outcome: StringEnum(['stored', 'duplicate', 'status_applied', 'status_unknown_message', 'connection_applied', 'ignored']),
        messageId: Type.String(),
        ticketId: Type.Integer(),
      }),
    ),
  }),
  { $id: 'InboundResult' },
);

export const PaymentWebhookResult = Envelope(
  Exact({
    received: Type.Literal(true),
    applied: Type.Boolean(),
    duplicate: Type.Boolean(),
    outcome: Type.String({ description: 'applied, duplicate, older, unknown_customer, ignored_type or other_gateway' }),
  }),
  { $id: 'PaymentWebhookResult' },
);
