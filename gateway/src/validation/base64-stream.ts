import type { FastifyInstance, FastifyRequest } from 'fastify';
import { payloadTooLarge } from '@convo/kit';
import { boundedJsonParse } from './json-parser';
import { isMediaRoute } from './multipart';

/**
 * JSON bodies of the media routes, read as they stream in: the top-level `base64Data` string is
 * decoded chunk by chunk into one buffer of the file's size and never held as text, and the rest
 * of the body (a few small fields) is parsed as every JSON body is (json-parser.ts).
 *
 * Read whole, a 20 MB base64 body was held four times over before its file reached the gRPC call
 * (the raw text, its flattened copy, the parsed string, the decoded file): 12 concurrent uploads
 * took the gateway past 1 GB. Streamed, a request holds its decoded file and 64 KiB.
 *
 * The parsed body keeps `base64Data` as a stand-in the schema's rules take (`AAAA`) or refuse
 * (`!`, "must be base64": a character outside the alphabet, a JSON escape other than `\/` and
 * whitespace, a length not a multiple of 4); `mediaOf` takes the file from `decodedFileOf(body)`.
 * A `data:<type>;base64,` prefix is dropped as before. A file larger than `maxBytes` answers 413
 * as soon as its bytes pass the limit.
 */
const decoded = new WeakMap<object, Buffer>();

/** The file a media route's `base64Data` carried, decoded while the body streamed in. */
export const decodedFileOf = (body: object): Buffer | undefined => decoded.get(body);

const KEY = Buffer.from('base64Data');
const VALID_STAND_IN = 'AAAA';
const INVALID_STAND_IN = '!';
const DATA_URL = /^data:[^;,]+;base64,$/;
const PENDING_BYTES = 64 * 1024;

/** base64 alphabet (A–Z a–z 0–9 + /) by byte. */
const ALPHABET = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') ALPHABET[c.charCodeAt(0)] = 1;

const Q = 0x22; // "
const BS = 0x5c; // \

/** Decodes base64 text handed over in pieces into one buffer, checking it on the way. */
class Base64Sink {
  private out: Buffer;
  private size = 0;
  private readonly pending = Buffer.allocUnsafe(PENDING_BYTES);
  private pendingLength = 0;
  private chars = 0;
  private padding = 0;
  private head: number[] | undefined = [];
  invalid = false;

  constructor(
    capacity: number,
    private readonly maxBytes: number,
  ) {
    this.out = Buffer.allocUnsafeSlow(Math.max(0, Math.min(capacity, maxBytes + 3)));
  }

  /** One character of the decoded JSON string. */
  push(c: number): void {
    if (this.invalid) return;
    // The first characters may be a data URL's `data:<type>;base64,`, dropped as the rule does.
    if (this.head) {
      this.head.push(c);
      const text = String.fromCharCode(...this.head);
      if (!'data:'.startsWith(text.slice(0, 5))) return this.flushHead();
      if (c === 0x2c /* , */) {
        if (DATA_URL.test(text)) this.head = undefined;
        else this.flushHead();
      } else if (this.head.length > 256) this.flushHead();
      return;
    }
    this.take(c);
  }

  private flushHead(): void {
    const head = this.head!;
    this.head = undefined;
    for (const c of head) this.take(c);
  }

  private take(c: number): void {
    if (this.invalid) return;
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return;
    if (c === 0x3d /* = */) {
      if (++this.padding > 2) this.invalid = true;
    } else if (!ALPHABET[c] || this.padding > 0) {
      this.invalid = true;
      return;
    }
    this.chars++;
    this.pending[this.pendingLength++] = c;
    if (this.pendingLength === PENDING_BYTES) this.drain();
  }

  /** Decodes the pending characters (a multiple of 4 but at the end). Throws 413 past the limit. */
  private drain(): void {
    if (!this.pendingLength) return;
    const text = this.pending.toString('latin1', 0, this.pendingLength);
    this.pendingLength = 0;
    const bytes = Buffer.byteLength(text, 'base64');
    if (this.size + bytes > this.maxBytes) throw payloadTooLarge(`media is larger than ${this.maxBytes} bytes`);
    if (this.size + bytes > this.out.length) {
      const grown = Buffer.allocUnsafeSlow(Math.min(this.maxBytes + 3, Math.max(this.size + bytes, this.out.length * 2)));
      this.out.copy(grown, 0, 0, this.size);
      this.out = grown;
    }
    this.size += this.out.write(text, this.size, 'base64');
  }

  /** The file, or undefined when the text was not base64. */
  end(): Buffer | undefined {
    if (this.head) this.flushHead();
    if (this.invalid || this.chars === 0 || this.chars % 4 !== 0) return undefined;
    this.drain();
    return this.out.subarray(0, this.size);
  }
}

/** JSON escapes inside base64Data: `\/` is a slash (PHP writes it), `\n` `\r` `\t` whitespace. */
const ESCAPED: Record<number, number> = { 0x2f: 0x2f, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

/** Takes a media route's JSON body apart as described above; other routes' bodies as text. */
async function readMediaJson(
  req: FastifyRequest,
  payload: NodeJS.ReadableStream,
  maxBytes: number,
): Promise<{ text: string; file?: Buffer }> {
  const limit = req.routeOptions.bodyLimit ?? Infinity;
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  const tooLarge = () => Object.assign(new Error('Request body is too large'), { statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
  if (declared !== undefined && declared > limit) throw tooLarge();
  const streaming = isMediaRoute(req);
  const text: Buffer[] = [];
  let received = 0;
  // Scanner state: nesting depth, inside a string, after a backslash, the top-level key being read.
  let depth = 0;
  let inString = false;
  let escape = false;
  let key: number[] | undefined;
  let lastKey = '';
  let expectKey = false;
  let afterColon = false;
  let sink: Base64Sink | undefined;
  let file: Buffer | undefined;
  let fileSeen = false;

  const feed = (raw: Buffer | string) => {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
    received += chunk.length;
    if (received > limit) throw tooLarge();
    let from = 0; // start of the chunk's text not yet kept
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (sink) {
        if (escape) {
          escape = false;
          const e = ESCAPED[c];
          if (e === undefined) sink.invalid = true;
          else sink.push(e);
        } else if (c === BS) escape = true;
        else if (c === Q) {
          file = sink.end();
          fileSeen = true;
          sink = undefined;
          text.push(Buffer.from(`${file ? VALID_STAND_IN : INVALID_STAND_IN}"`));
          from = i + 1;
        } else if (c < 0x20) sink.invalid = true;
        else sink.push(c);
        continue;
      }
      if (inString) {
        if (escape) escape = false;
        else if (c === BS) escape = true;
        else if (c === Q) inString = false;
        if (key) {
          // A key longer than `base64Data` is some other key: keep no more of it.
          if (inString) {
            if (key.length <= KEY.length) key.push(c);
          } else {
            lastKey = key.length === KEY.length && Buffer.from(key).equals(KEY) ? 'base64Data' : '';
            key = undefined;
          }
        }
        continue;
      }
      if (c === Q) {
        if (streaming && afterColon && depth === 1 && lastKey === 'base64Data') {
          // The value's text goes to the sink; the kept text gets the stand-in instead.
          text.push(Buffer.from(chunk.subarray(from, i + 1)));
          const capacity = declared !== undefined ? Math.ceil((declared * 3) / 4) : maxBytes + 3;
          sink = new Base64Sink(capacity, maxBytes);
          afterColon = false;
          continue;
        }
        inString = true;
        if (depth === 1 && expectKey) {
          key = [];
          expectKey = false;
        }
        afterColon = false;
        continue;
      }
      if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
        depth++;
        expectKey = depth === 1 && c === 0x7b;
        afterColon = false;
      } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
        depth--;
        afterColon = false;
      } else if (c === 0x2c /* , */) {
        if (depth === 1) expectKey = true;
        afterColon = false;
        lastKey = depth === 1 ? '' : lastKey;
      } else if (c === 0x3a /* : */) {
        afterColon = depth === 1;
      } else if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        afterColon = false;
      }
    }
    if (!sink && from < chunk.length) text.push(Buffer.from(chunk.subarray(from)));
  };
  // Events rather than `for await`: leaving that loop on an error destroys the request, and with it
  // the socket the error's answer goes out on. Here the rest of a refused body is drained unread.
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer | string) => {
      try {
        feed(chunk);
      } catch (err) {
        payload.removeListener('data', onData);
        payload.resume();
        reject(err as Error);
      }
    };
    payload.on('data', onData);
    payload.once('end', resolve);
    payload.once('error', reject);
  });
  if (declared !== undefined && received !== declared) {
    throw Object.assign(new Error('Request body size did not match Content-Length'), {
      statusCode: 400,
      code: 'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
    });
  }
  // A string cut off by the end of the body: the text is left unterminated, so parsing refuses it.
  if (sink) text.push(Buffer.from(INVALID_STAND_IN));
  return { text: Buffer.concat(text).toString('utf8'), file: fileSeen ? file : undefined };
}

/**
 * Installs the streaming JSON parser in the calling plugin's scope (its routes only): the media
 * routes' plugins call it.
 */
export function installMediaJsonParser(app: FastifyInstance, maxBytes: number): void {
  const parse = boundedJsonParse(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (req, payload, done) => {
    readMediaJson(req, payload, maxBytes).then(
      ({ text, file }) =>
        parse(req, text, (err, body) => {
          if (err) return done(err, undefined);
          if (file && body && typeof body === 'object') decoded.set(body as object, file);
          done(null, body);
        }),
      (err: Error) => done(err, undefined),
    );
  });
}
