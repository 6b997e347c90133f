import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLogLine, recordingUnexpected } from '../src/ferretdb-log';

// Lines as FerretDB 1.24 over PostgreSQL writes them (--log-format=json), from an e2e run.
const duplicateKey = JSON.stringify({
  level: 'ERROR',
  source: { function: 'github.com/FerretDB/FerretDB/internal/backends/postgresql.(*collection).InsertAll.func1' },
  msg: 'Query',
  name: 'postgresql',
  args: { 0: '{"$s":{"p":{"_id":{"t":"string"},"tenantId":{"t":"int"} (truncated 361 bytes)' },
  err: 'ERROR: duplicate key value violates unique constraint "payment_reconciliations_b87c41__id__67399184_idx" (SQLSTATE 23505)',
  sql: 'INSERT INTO "convo_tenants"."payment_reconciliations_b87c4168" (_jsonb) VALUES ($1)',
});
const deadlock = JSON.stringify({
  level: 'ERROR',
  msg: 'Query',
  name: 'postgresql',
  args: { 0: '{"secret":"data"}' },
  err: 'ERROR: deadlock detected (SQLSTATE 40P01)',
  sql: 'UPDATE "convo_messaging"."messages_1d2e3f4a"\n   SET _jsonb = $1 WHERE _jsonb->\'_id\' = $2',
});

describe("FerretDB's log lines", () => {
  it('says what failed and why on an unexpected error: the error and its statement, not its arguments', () => {
    const entry = readLogLine(deadlock);
    expect(entry).toEqual({
      kind: 'unexpected',
      text: 'ERROR | Query | ERROR: deadlock detected (SQLSTATE 40P01) | UPDATE "convo_messaging"."messages_1d2e3f4a" SET _jsonb = $1 WHERE _jsonb->\'_id\' = $2',
    });
    expect(entry.text).not.toContain('secret');
    expect(readLogLine(JSON.stringify({ level: 'ERROR', msg: 'Query', err: 'ERROR: out of shared memory (SQLSTATE 53200)' }))).toEqual({
      kind: 'unexpected',
      text: 'ERROR | Query | ERROR: out of shared memory (SQLSTATE 53200)',
    });
    // A client gone (a process killed, a deadline run out) is the client's own error, not the database's.
    expect(readLogLine(JSON.stringify({ level: 'ERROR', msg: 'Acquire', err: 'context canceled' })).kind).toBe('expected');
    expect(
      readLogLine(JSON.stringify({ level: 'ERROR', msg: 'Query', err: 'ERROR: canceling statement due to user request (SQLSTATE 57014)' }))
        .kind,
    ).toBe('expected');
  });

  it('takes a duplicate key (a claim lost, an insert a unique index guards) and an index that exists for expected conflicts', () => {
    expect(readLogLine(duplicateKey)).toMatchObject({ kind: 'expected', reason: expect.stringContaining('E11000') });
    const exists = JSON.stringify({
      level: 'ERROR',
      msg: 'Query',
      err: 'ERROR: relation "messages_1d2e3f4a_status_idx" already exists (SQLSTATE 42P07)',
      sql: 'CREATE INDEX …',
    });
    expect(readLogLine(exists)).toMatchObject({ kind: 'expected', reason: expect.stringContaining('already exists') });
  });

  it('keeps warnings routine, their first line only, and takes what is not its JSON for unexpected', () => {
    const warning = JSON.stringify({ level: 'WARN', msg: 'Response message:\n{\n  "ok": 0.0 }', name: 'conn' });
    expect(readLogLine(warning)).toEqual({ kind: 'routine', text: 'WARN | Response message:' });
    expect(readLogLine('panic: runtime error: index out of range')).toEqual({
      kind: 'unexpected',
      text: 'panic: runtime error: index out of range',
    });
  });

  it('appends the unexpected lines, and only those, to the error log besides relaying every line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferretdb-log-'));
    const file = join(dir, 'errors.log');
    const relayed: string[] = [];
    const log = recordingUnexpected((line) => relayed.push(line), file, 'suite');
    log('FerretDB lost a port race, retrying');
    log('[ferretdb] ERROR | Query | ERROR: deadlock detected (SQLSTATE 40P01)', true);
    expect(relayed).toHaveLength(2);
    expect(readFileSync(file, 'utf8')).toMatch(/^\S+Z suite \[ferretdb\] ERROR \| Query \| ERROR: deadlock detected \(SQLSTATE 40P01\)\n$/);
    rmSync(dir, { recursive: true, force: true });
  });
});
