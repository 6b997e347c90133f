import Type, { type Static } from 'typebox';
import { Id } from './common';

/** The same schema validates the JSON body and the multipart form fields (parsed from text). */
export const SendMessageBody = Type.Object({
  ticketId: Id(),
  body: Type.Optional(Type.String({ maxLength: 4096, description: 'Text, or the caption of a file' })),
  externalKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Idempotency key (120 s)' })),
  reopen: Type.Optional(Type.Boolean({ default: false, description: 'Must be true to send to a closed ticket' })),
  isClosed: Type.Optional(Type.Boolean({ default: false, description: 'Closes the ticket after sending' })),
  mediaUrl: Type.Optional(Type.String({ maxLength: 2048, description: 'Public http(s) URL; no redirects, no private hosts' })),
  base64Data: Type.Optional(Type.String({ maxLength: 25_165_824, description: 'File content in base64; needs mimeType and fileName' })),
  mimeType: Type.Optional(Type.String({ maxLength: 128 })),
  fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Without extension' })),
  media: Type.Optional(Type.Unknown({ description: 'multipart/form-data file field' })),
});
export type SendMessageBody = Static<typeof SendMessageBody>;

/** What @fastify/multipart's onFile hands over for the `media` file field. */
export interface UploadedFile {
  data: Buffer;
  mimeType: string;
  fileName: string;
  truncated: boolean;
}
