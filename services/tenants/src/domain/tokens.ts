import { randomBytes, randomUUID } from 'node:crypto';

/** 256 bits of randomness: a token nobody can guess, shown once and stored as its hash. */
export const newApiToken = (): string => randomBytes(32).toString('base64url');
export const newApiId = (): string => randomUUID();
/** A Standard Webhooks signing secret: "whsec_" + 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
/** The stored form of a token: the kit's, which the gateway resolves by. */
export { tokenSha256 as sha256 } from '@convo/kit';
