import {
  DomainError,
  mediaLinkUrl,
  notFound,
  safeRequest,
  SUPPORTED_MEDIA_TYPES,
  validation,
  type AllowList,
  type proto,
} from '@convo/kit';
import type { MediaStore } from '../db/media.store';
import { checkSize, fileNameFor, normalizeMimeType } from './media';

export interface MediaSettings {
  maxBytes: number;
  /** Where the gateway serves /media links, as providers reach it. */
  publicBaseUrl: string;
  linkSecret: string;
  linkTtlSeconds: number;
  fetchConnectTimeoutMs: number;
  fetchTotalTimeoutMs: number;
  /**
   * Never set from the environment: media fetches do not reach private addresses. Tests pass one
   * to reach a loopback fixture through the same client.
   */
  fetchAllowPrivate?: AllowList;
}

export interface ResolvedMedia {
  mediaId: string;
  mimeType: string;
  fileName: string;
  /** A signed, expiring link to the stored file, handed to the driver. */
  link: string;
  sourceUrl: string;
}

/** A signed link to a stored file, valid for the configured time from now (the dispatcher signs one per attempt). */
export function signedMediaLink(
  settings: Pick<MediaSettings, 'publicBaseUrl' | 'linkSecret' | 'linkTtlSeconds'>,
  mediaId: string,
  fileName: string,
): string {
  const expires = Math.floor(Date.now() / 1000) + settings.linkTtlSeconds;
  return mediaLinkUrl(settings.publicBaseUrl, { mediaId, fileName, expires }, settings.linkSecret);
}

const unsupported = (mimeType: string) =>
  new DomainError(
    'unsupported_media',
    'ERR_UNSUPPORTED_MEDIA_TYPE',
    `Media type ${mimeType || '(none)'} is not supported; supported: ${SUPPORTED_MEDIA_TYPES.join(', ')}`,
  );

/** Brings media from the request (bytes or a caller's URL) into the store, once per send. */
export class MediaService {
  constructor(
    private readonly store: MediaStore,
    private readonly settings: MediaSettings,
  ) {}

  async resolve(tenantId: number, media: proto.messaging.Media__Output): Promise<ResolvedMedia> {
    const { data, mimeType, sourceUrl, name } = media.data.length ? this.fromBytes(media) : await this.fromUrl(media);
    checkSize(data.length, this.settings.maxBytes);
    const fileName = fileNameFor(name, mimeType);
    const stored = await this.store.put(data, { mimeType, fileName, tenantId });
    return { mediaId: stored.mediaId, mimeType, fileName, link: this.linkFor(stored.mediaId, fileName), sourceUrl };
  }

  linkFor(mediaId: string, fileName: string): string {
    return signedMediaLink(this.settings, mediaId, fileName);
  }

  async get(mediaId: string): Promise<proto.messaging.MediaFile> {
    const file = await this.store.get(mediaId);
    if (!file) throw notFound('media');
    return { mediaId, mimeType: file.mimeType, fileName: file.fileName, data: file.data };
  }

  private fromBytes(media: proto.messaging.Media__Output) {
    const mimeType = normalizeMimeType(media.mimeType);
    if (!mimeType) throw unsupported(media.mimeType);
    return { data: media.data, mimeType, sourceUrl: '', name: media.fileName };
  }

  /** The caller's URL goes through the SSRF-filtered client: public hosts only, no redirects. */
  private async fromUrl(media: proto.messaging.Media__Output) {
    const res = await safeRequest(media.url, {
      connectTimeoutMs: this.settings.fetchConnectTimeoutMs,
      totalTimeoutMs: this.settings.fetchTotalTimeoutMs,
      maxBytes: this.settings.maxBytes,
      allowPrivate: this.settings.fetchAllowPrivate,
    });
    if (res.status >= 300 && res.status < 400) {
      throw validation(
        'mediaUrl redirects, and redirects are not followed',
        [{ field: 'mediaUrl', message: `answered ${res.status}` }],
        'ERR_MEDIA_URL',
      );
    }
    if (res.status !== 200) {
      throw validation(`mediaUrl answered HTTP ${res.status}`, [{ field: 'mediaUrl', message: `answered ${res.status}` }], 'ERR_MEDIA_URL');
    }
    const declared = media.mimeType || String(res.headers['content-type'] ?? '');
    const mimeType = normalizeMimeType(declared);
    if (!mimeType) throw unsupported(declared);
    const last = decodeURIComponent(new URL(media.url).pathname.split('/').pop() ?? '');
    const name = media.fileName || last.replace(/\.[^.]*$/, '') || 'file';
    return { data: res.body, mimeType, sourceUrl: media.url, name };
  }
}
