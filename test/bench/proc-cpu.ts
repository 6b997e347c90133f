// CPU time of processes, from /proc (Linux): the bench's CPU per send of each mesh process, of the
// floor and of the database server's processes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLK_TCK = 100;

/** utime + stime of a process, in ms. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
  } catch {
    return 0;
  }
}

/**
 * The processes of this mesh's database: its FerretDB (found by its listen address) and the
 * PostgreSQL backends serving its database (by name), plus PostgreSQL's shared background
 * processes. Other databases on the machine (another mesh's FerretDB and backends) are left out.
 */
export function databasePids(uri: string, postgresUrl?: string): number[] {
  const listen = new URL(uri.replace(/^mongodb:/, 'http:')).host;
  const dbName = postgresUrl ? new URL(postgresUrl).pathname.slice(1) : '';
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const cmd = readFileSync(join('/proc', d, 'cmdline'), 'utf8').replace(/\0/g, ' ');
        if (/ferretdb/.test(cmd)) return cmd.includes(`--listen-addr=${listen}`) || !/--listen-addr=/.test(cmd);
        if (!/postgres/.test(cmd)) return false;
        // A backend names its database; the postmaster and its background workers name none.
        return /^postgres: \S+: postgres /.test(cmd) ? !!dbName && cmd.includes(` ${dbName} `) : true;
      } catch {
        return false;
      }
    })
    .map(Number);
}

export const isFerretDb = (pid: number) => {
  try {
    return /ferretdb/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
};

export const sumCpu = (pids: number[]) => pids.reduce((s, pid) => s + cpuMs(pid), 0);

/**
 * CPU ms of the database's processes since `before` (pid → ms then): processes that started
 * meanwhile count whole, and one that ended is left out rather than subtracted.
 */
export const cpuSnapshot = (pids: number[]) => new Map(pids.map((pid) => [pid, cpuMs(pid)] as const));
export const cpuSince = (before: Map<number, number>, pids: number[]) =>
  pids.reduce((s, pid) => s + Math.max(0, cpuMs(pid) - (before.get(pid) ?? 0)), 0);
