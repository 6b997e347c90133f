import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Routes that take a file say so with `config: { media: true }` (and a larger `bodyLimit`). */
export const isMediaRoute = (req: FastifyRequest): boolean => (req.routeOptions.config as { media?: boolean } | undefined)?.media === true;

/** A file part sent to a route without media is refused before it is read: 413, nothing stored. */
export function refuseFileOutsideMediaRoutes(req: FastifyRequest, part: MultipartFile): void {
  if (isMediaRoute(req)) return;
  part.file.resume();
  throw Object.assign(new Error('This route takes no file'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
}

const parsed = new WeakSet<FastifyRequest>();

/**
 * Marks multipart requests whose body was read in full. Registered after @fastify/multipart (which
 * reads the parts in its own preValidation hook), so an error raised before the mark on a
 * multipart request comes from the body itself: a missing or wrong boundary, a cut-off part.
 */
export function markParsedMultipart(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart()) parsed.add(req);
  });
}

/** An error of a multipart request raised while its body was being read: the body is malformed. */
export const isMalformedMultipart = (req: FastifyRequest, err: { statusCode?: number }): boolean =>
  err.statusCode === undefined && typeof req.isMultipart === 'function' && req.isMultipart() && !parsed.has(req);

/**
 * A file part read into one buffer of its size (at most the body's Content-Length and the file
 * limit), rather than chunks then their concatenation (twice the file for a moment).
 */
export async function readFile(file: AsyncIterable<Buffer>, contentLength: string | undefined, maxBytes: number): Promise<Buffer> {
  const declared = Number(contentLength);
  let out = Buffer.allocUnsafeSlow(Number.isFinite(declared) && declared > 0 ? Math.min(declared, maxBytes) : 64 * 1024);
  let size = 0;
  for await (const chunk of file) {
    if (size + chunk.length > out.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(size + chunk.length, Math.min(out.length * 2, maxBytes)));
      out.copy(grown, 0, 0, size);
      out = grown;
    }
    chunk.copy(out, size);
    size += chunk.length;
  }
  return out.subarray(0, size);
}
