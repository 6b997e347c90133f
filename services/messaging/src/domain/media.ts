import { payloadTooLarge, validation } from '@convo/kit';

/** Media kinds every driver can carry; anything else is refused with 415. */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/aac': 'aac',
  'audio/mp4': 'm4a',
  'audio/amr': 'amr',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/zip': 'zip',
  'text/plain': 'txt',
  'text/csv': 'csv',
};

export const SUPPORTED_MIME_TYPES = Object.keys(EXTENSIONS);

/** `image/jpeg; charset=x` → `image/jpeg`, or undefined for a type no driver carries. */
export function normalizeMimeType(raw: string): string | undefined {
  const t = raw.split(';')[0].trim().toLowerCase();
  return EXTENSIONS[t] ? t : undefined;
}

/** The stored file name: the caller's name (no path) plus the extension of its type. */
export function fileNameFor(name: string, mimeType: string): string {
  const base = name.trim() || 'file';
  if (/[\\/\0]|^\.|\.\./.test(base) || base.length > 200) {
    throw validation('Invalid file name', [{ field: 'fileName', message: 'must be a plain name without path characters' }]);
  }
  const ext = EXTENSIONS[mimeType];
  return base.toLowerCase().endsWith(`.${ext}`) ? base : `${base}.${ext}`;
}

export function checkSize(size: number, maxBytes: number): void {
  if (size > maxBytes) throw payloadTooLarge(`Media is larger than ${maxBytes} bytes`);
  if (size === 0) throw validation('Empty media', [{ field: 'media', message: 'is empty' }]);
}
