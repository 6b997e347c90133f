import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

/** One message as the fake relay received it: the SMTP envelope and the DATA, byte for byte. */
export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  /** AUTH credentials of the session, when the client logged in. */
  auth?: { username: string; password: string };
  raw: string;
}

/** What the fake does with a RCPT TO: accept it, or refuse it with an SMTP reply. */
export type RcptReply = 'accept' | { code: number; message: string };

export interface FakeSmtp {
  /** `smtp://127.0.0.1:<port>`, without credentials. */
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Refused RCPT TO commands, in order. */
  refused: string[];
  /** SMTP sessions opened so far (a pooled client reuses one). */
  connections(): number;
  onRcpt(fn: (address: string) => RcptReply): void;
  /** From now on, takes the DATA and never answers it. */
  hangOnData(): void;
  reset(): void;
  close(): Promise<void>;
}

/**
 * An SMTP relay on loopback (smtp-server) that records every message it accepts. Plain text, no
 * STARTTLS (there is no certificate); AUTH PLAIN/LOGIN is offered and optional.
 */
export async function startFakeSmtp(): Promise<FakeSmtp> {
  const mails: ReceivedMail[] = [];
  const refused: string[] = [];
  let rcpt: (address: string) => RcptReply = () => 'accept';
  let hang = false;
  let sessions = 0;
  const options: SMTPServerOptions = {
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    // Pooled client connections must not hold a test's close for the default 30 s.
    closeTimeout: 100,
    onConnect(_session, callback) {
      sessions++;
      callback();
    },
    onAuth(auth, _session, callback) {
      callback(null, { user: { username: auth.username, password: auth.password } });
    },
    onRcptTo(address, _session, callback) {
      const answer = rcpt(address.address);
      if (answer === 'accept') return callback();
      refused.push(address.address);
      callback(Object.assign(new Error(answer.message), { responseCode: answer.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (hang) return;
        const user = session.user as unknown as { username: string; password: string } | undefined;
        mails.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          auth: user,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  };
  const server = new SMTPServer(options);
  const port = await new Promise<number>((resolve) => {
    const net = server.listen(0, '127.0.0.1', () => resolve((net.address() as AddressInfo).port));
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    refused,
    connections: () => sessions,
    onRcpt(fn) {
      rcpt = fn;
    },
    hangOnData() {
      hang = true;
    },
    reset() {
      mails.length = 0;
      refused.length = 0;
      rcpt = () => 'accept';
      hang = false;
      sessions = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A TCP server that accepts connections and never says a word: an SMTP greeting that never comes. */
export async function startSilentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface MimePart {
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A small MIME reader for assertions: top-level headers (unfolded, RFC 2047 words decoded) and the
 * leaves of a multipart body with their transfer encoding (base64, quoted-printable) undone.
 */
export function parseMail(raw: string): { headers: Record<string, string>; parts: MimePart[] } {
  // The final CRLF ends the DATA (before its "."), not the body.
  const { headers, body } = splitPart(raw.replace(/\r\n$/, ''));
  return { headers, parts: leaves(headers, body) };
}

function splitPart(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at < 0 ? raw : raw.slice(0, at);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body: at < 0 ? '' : raw.slice(at + 4) };
}

function leaves(headers: Record<string, string>, body: string): MimePart[] {
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  if (!boundary || !/^multipart\//i.test(headers['content-type'])) return [{ headers, body: decodeBody(headers, body) }];
  return body
    .split(`--${boundary}`)
    .slice(1, -1)
    .flatMap((chunk) => {
      const part = splitPart(chunk.replace(/^\r\n/, '').replace(/\r\n$/, ''));
      return leaves(part.headers, part.body);
    });
}

function decodeBody(headers: Record<string, string>, body: string): Buffer {
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return decodeQp(body);
  return Buffer.from(body, 'utf8');
}

function decodeQp(text: string): Buffer {
  const soft = text.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(soft[i], 'utf8'));
  }
  return Buffer.from(bytes);
}

function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_m, _charset: string, enc: string, text: string) =>
      enc.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQp(text.replace(/_/g, ' ')).toString('utf8'),
    );
}
