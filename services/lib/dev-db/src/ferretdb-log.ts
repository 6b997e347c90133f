import { appendFileSync } from 'node:fs';
import type { Log } from './build';

/**
 * FerretDB's own log (`--log-format=json`, warnings and up), line by line.
 *
 * FerretDB logs every PostgreSQL statement that fails at ERROR, as `msg: "Query"` with the
 * statement (`sql`) and PostgreSQL's error (`err`, ending in its SQLSTATE). Most are no fault of
 * anyone's: a unique index refusing an insert is how a claim is lost (the kit's ClaimStore inserts
 * a document whose `_id` names what it claims) and how insertOnce finds its document already there;
 * the client is told E11000 and acts on it. Those expected conflicts are dropped. Any other error is
 * unexpected: relayed with what failed and why, and recorded (DEV_DB_ERROR_LOG) so that a test run
 * fails on it. Warnings are routine (every driver disconnect logs one, every refused command its
 * answer) and only kept for the message of a failed start.
 */
export type LogKind = 'routine' | 'expected' | 'unexpected';

export interface LogEntry {
  /** The parts a person needs: level, message, PostgreSQL's error, the statement (no arguments: they are data). */
  text: string;
  kind: LogKind;
  /** Why an expected error is no fault. */
  reason?: string;
}

/** The SQLSTATEs a client provokes and is answered for, and why each is expected. */
export const EXPECTED_ERRORS: Record<string, string> = {
  '23505': 'a unique index refused a write (a claim already taken, a document inserted once): the client is told E11000',
  '42P07': 'an index or collection that already exists (another process created it meanwhile)',
  '57014': 'a statement cancelled because its client went away or its time limit ran out: the client has its own error',
};

/** A statement whose client's context ended (a process killed, a request's deadline): as 57014. */
const CLIENT_GONE = /context canceled|context deadline exceeded/;

/** Enough of a statement to tell which collection and which operation. */
const SQL_SHOWN = 300;

interface FerretDbEntry {
  level?: string;
  msg?: string;
  err?: string;
  error?: string;
  sql?: string;
}

export function readLogLine(line: string): LogEntry {
  let entry: FerretDbEntry;
  try {
    entry = JSON.parse(line) as FerretDbEntry;
  } catch {
    // Not FerretDB's JSON: a Go panic's trace, say.
    return { text: line, kind: 'unexpected' };
  }
  if (!entry.msg) return { text: line, kind: 'unexpected' };
  const level = entry.level ?? '';
  const error = entry.err ?? entry.error;
  const sql = entry.sql?.replace(/\s+/g, ' ').slice(0, SQL_SHOWN);
  // Some messages embed whole wire dumps after their first line.
  const text = [level, entry.msg.split('\n')[0], error, sql].filter(Boolean).join(' | ');
  if (/^(DEBUG|INFO|WARN)/.test(level)) return { text, kind: 'routine' };
  const state = CLIENT_GONE.test(error ?? '') ? '57014' : (/\(SQLSTATE (\w{5})\)$/.exec(error ?? '')?.[1] ?? '');
  const reason = EXPECTED_ERRORS[state];
  return reason ? { text, kind: 'expected', reason } : { text, kind: 'unexpected' };
}

/**
 * The caller's log, and FerretDB's unexpected errors appended to `file` as well, one line each
 * (`<time> <database> <text>`): a line is one append, so processes sharing the file never interleave.
 */
export function recordingUnexpected(log: Log, file: string | undefined, name: string): Log {
  if (!file) return log;
  return (line, unexpected) => {
    log(line);
    if (unexpected) appendFileSync(file, `${new Date().toISOString()} ${name} ${line}\n`);
  };
}
