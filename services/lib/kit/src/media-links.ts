import { createHmac } from 'node:crypto';
import { safeEqual } from './secrets';

/**
 * Links to stored media that providers fetch (engines take a URL): HMAC-signed and expiring, so
 * a link reveals one file for a while and nothing else.
 */
export interface MediaLink {
  mediaId: string;
  fileName: string;
  expires: number;
}

const payload = (l: MediaLink) => `${l.mediaId}\n${l.fileName}\n${l.expires}`;
const sign = (l: MediaLink, secret: string) => createHmac('sha256', secret).update(payload(l)).digest('base64url');

export function mediaLinkUrl(baseUrl: string, link: MediaLink, secret: string): string {
  const path = `/media/${encodeURIComponent(link.mediaId)}/${encodeURIComponent(link.fileName)}`;
  return `${baseUrl.replace(/\/+$/, '')}${path}?expires=${link.expires}&sig=${sign(link, secret)}`;
}

/** True when the signature matches and the link has not expired (`expires` in Unix seconds). */
export function verifyMediaLink(link: MediaLink, sig: string, secret: string, nowSeconds = Date.now() / 1000): boolean {
  if (!Number.isFinite(link.expires) || link.expires < nowSeconds) return false;
  return safeEqual(sig, sign(link, secret));
}
