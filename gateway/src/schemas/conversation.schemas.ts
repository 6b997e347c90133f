import Type, { type Static } from 'typebox';
import { ContactId, Id, NonEmpty } from './common';
import { Envelope, Exact } from './envelopes';
import { rule } from '../validation/rules';

/** The longest emoji sequence a reaction takes (messaging's MAX_EMOJI_CHARS; a flag or a family with modifiers stays under it). */
const MAX_EMOJI = 32;
/** An edit's new text: WhatsApp's limit of a text message (messaging's MAX_EDIT_CHARS). */
const MAX_EDIT = 4096;

/** Our id of a stored message: what every message read and webhook shows as its `id` / `messageId`. */
const MessageId = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

/** sendReaction names its conversation by exactly one of ticketId and number. */
const oneConversation = rule('ticketOrNumber', (b) => {
  const has = (k: string) => b[k] !== undefined && b[k] !== null && b[k] !== '';
  if (has('ticketId') && has('number')) return [{ field: 'number', message: 'give ticketId or number, not both' }];
  if (!has('ticketId') && !has('number')) return [{ field: 'ticketId', message: 'ticketId or number is required' }];
  return [];
});

export const SendReactionBody = Type.Object(
  {
    ticketId: Type.Optional(Id('The ticket of the message (or give number)')),
    number: Type.Optional(ContactId("The contact whose conversation on the integration's channel holds the message (or give ticketId)")),
    messageId: MessageId("The message reacted to: its id in message reads and webhooks (the contact's or ours)"),
    emoji: Type.String({
      maxLength: MAX_EMOJI,
      description: 'One emoji ("👍"); "" removes our reaction. Instagram (social_a) takes only ❤️.',
    }),
  },
  { ...oneConversation, examples: [{ ticketId: 42, messageId: '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b', emoji: '👍' }] },
);
export type SendReactionBody = Static<typeof SendReactionBody>;

export const EditMessageBody = Type.Object(
  {
    messageId: MessageId('A message the business sent (fromMe)'),
    body: NonEmpty('The new text', MAX_EDIT),
  },
  { examples: [{ messageId: '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b', body: 'See you at 3 pm (not 2)' }] },
);
export type EditMessageBody = Static<typeof EditMessageBody>;

export const DeleteMessageBody = Type.Object(
  { messageId: MessageId('A message the business sent (fromMe), deleted for everyone') },
  { examples: [{ messageId: '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b' }] },
);
export type DeleteMessageBody = Static<typeof DeleteMessageBody>;

/**
 * A change accepted for delivery (docs/api/beyond-the-seed.md, "Reactions, edits and deletions"):
 * stored and queued behind the ticket's earlier sends; the message shows it once the provider took it.
 */
export const ChangeResult = Envelope(
  Exact({
    message: Type.String(),
    ticketId: Type.Integer({ description: "The message's ticket" }),
    messageId: Type.String({ description: 'The message changed' }),
    changeId: Type.String({ description: 'The queued change' }),
  }),
  {
    $id: 'ChangeResult',
    example: {
      message: 'Reaction accepted for delivery',
      ticketId: 42,
      messageId: '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b',
      changeId: '0193b6f3-0a2d-7b44-8c1e-5f6a7b8c9d0e',
    },
  },
);
export type ChangeResult = Static<typeof ChangeResult>;
