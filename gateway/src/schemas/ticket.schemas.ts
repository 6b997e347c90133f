import Type, { type Static } from 'typebox';
import { Id, NonEmpty, NullableId, StringEnum } from './common';

export const CreateTicketBody = Type.Object({
  body: NonEmpty('First message, sent to the contact'),
  number: Type.Optional(Type.String({ minLength: 8, maxLength: 20, description: 'E.164, with or without +' })),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'E-mail variant, with channelId' })),
  channelId: Type.Optional(Id('Webmail channel of the e-mail variant')),
  externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  userId: Type.Optional(Id()),
  status: Type.Optional(StringEnum(['open', 'pending'])),
  validateNumber: Type.Optional(Type.Boolean()),
  queueId: Type.Optional(Id()),
  chatFlowId: Type.Optional(Id()),
  kanbanId: Type.Optional(Id()),
  reasonId: Type.Optional(Id()),
  value: Type.Optional(Type.Number({ minimum: 0 })),
});
export type CreateTicketBody = Static<typeof CreateTicketBody>;

export const TicketIdBody = Type.Object({ ticketId: Id() });

export const UpdateTicketBody = Type.Object({
  ticketId: Id(),
  userId: Type.Optional(Id()),
  status: Type.Optional(StringEnum(['open', 'pending', 'closed'])),
  queueId: Type.Optional(NullableId('null unassigns the queue')),
  chatFlowId: Type.Optional(NullableId('null detaches the chat flow')),
  botBuilderStatus: Type.Optional(Type.Boolean()),
  llmAssistantStatus: Type.Optional(Type.Boolean()),
  workflowStatus: Type.Optional(Type.Boolean()),
});
export type UpdateTicketBody = Static<typeof UpdateTicketBody>;

export const SendMessageBody = Type.Object({
  ticketId: Id(),
  body: Type.Optional(Type.String({ maxLength: 4096, description: 'Text, or the caption of a file' })),
  externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Idempotency key (120 s)' })),
  reopen: Type.Optional(Type.Boolean({ default: false })),
  isClosed: Type.Optional(Type.Boolean({ default: false })),
  mediaUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  base64Data: Type.Optional(Type.String()),
  mimeType: Type.Optional(Type.String({ maxLength: 128 })),
  fileName: Type.Optional(Type.String({ maxLength: 200 })),
});
export type SendMessageBody = Static<typeof SendMessageBody>;
