import { mediaTypeExtension, payloadTooLarge, validation } from '@convo/kit';

// The media types every driver can carry are the kit's table; anything else is refused with 415.

/** `image/jpeg; charset=x` → `image/jpeg`, or undefined for a type no driver carries. */
export function normalizeMimeType(raw: string): string | undefined {
  const t = raw.split(';')[0].trim().toLowerCase();
  return mediaTypeExtension(t) ? t : undefined;
}

/** The stored file name: the caller's name (no path) plus the extension of its type. */
export function fileNameFor(name: string, mimeType: string): string {
  const base = name.trim() || 'file';
  if (/[\\/\0]|^\.|\.\./.test(base) || base.length > 200) {
    throw validation('Invalid file name', [{ field: 'fileName', message: 'must be a plain name without path characters' }]);
  }
  const ext = mediaTypeExtension(mimeType);
  return base.toLowerCase().endsWith(`.${ext}`) ? base : `${base}.${ext}`;
}

export function checkSize(size: number, maxBytes: number): void {
  if (size > maxBytes) throw payloadTooLarge(`Media is larger than ${maxBytes} bytes`);
  if (size === 0) throw validation('Empty media', [{ field: 'media', message: 'is empty' }]);
}
