import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** 256 bits of randomness: a token nobody can guess, shown once and stored as its hash. */
export const newApiToken = (): string => randomBytes(32).toString('base64url');
export const newApiId = (): string => randomUUID();
/** A Standard Webhooks signing secret: "whsec_" + 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
export const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex');
