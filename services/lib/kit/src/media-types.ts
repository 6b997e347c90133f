// The media types the platform carries (every channel driver can send them) and the extension a
// file of each type is known by. Messaging refuses any other type (415); drivers name a file
// that came without a name by its type.
const EXTENSIONS = new Map<string, string>([
  ['image/jpeg', 'jpg'],
  ['image/png', 'png'],
  ['image/webp', 'webp'],
  ['image/gif', 'gif'],
  ['video/mp4', 'mp4'],
  ['video/3gpp', '3gp'],
  ['audio/mpeg', 'mp3'],
  ['audio/ogg', 'ogg'],
  ['audio/aac', 'aac'],
  ['audio/mp4', 'm4a'],
  ['audio/amr', 'amr'],
  ['application/pdf', 'pdf'],
  ['application/msword', 'doc'],
  ['application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
  ['application/vnd.ms-excel', 'xls'],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'xlsx'],
  ['application/vnd.ms-powerpoint', 'ppt'],
  ['application/vnd.openxmlformats-officedocument.presentationml.presentation', 'pptx'],
  ['application/zip', 'zip'],
  ['text/plain', 'txt'],
  ['text/csv', 'csv'],
]);

/** Every supported media type, in the table's order (e.g. for the message of a 415). */
export const SUPPORTED_MEDIA_TYPES: readonly string[] = [...EXTENSIONS.keys()];

/** The extension of a supported media type (`IMAGE/JPEG; q=1` → `jpg`); undefined for any other type. */
export function mediaTypeExtension(mimeType: string): string | undefined {
  return EXTENSIONS.get(mimeType.split(';')[0].trim().toLowerCase());
}
