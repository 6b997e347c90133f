// One job, one function: an exported function's name names one thing across the repository, so a
// reader who finds `isHttpUrl` or `tenantScopePlugin` finds the only one. Two exported functions
// of one name in two files fail here unless listed below with why they are different jobs.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Names that stand for a different job in each file that exports them, and why. */
const DIFFERENT_JOBS: Record<string, string> = {
  registerModels: "each service's own database models (tickets, messaging, tenants): one per database by design",
  templateOf: "the gateway's reads a send body's template; channel-engines' reads Meta's template record",
  inboundTime: "messaging's is an inbound event's provider time; tickets' parses OpenForContact's inbound_at",
};

const EXPORTED_FUNCTION =
  /^export (?:async )?function ([A-Za-z0-9_$]+)|^export const ([A-Za-z0-9_$]+)(?::[^=]+)? = (?:async )?(?:<[^>]*>)?(?:\([^)]*\)(?::[^=;]+)?|[A-Za-z0-9_$]+) =>/gm;

const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: __dirname, encoding: 'utf8' }).trim();
const sources = execFileSync('git', ['ls-files', '-z', '--', '*.ts'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  .split('\0')
  .filter((f) => /(^|\/)src\//.test(f) && !f.endsWith('.d.ts') && !f.includes('/generated/'));

function exportedFunctions(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const file of sources) {
    let text: string;
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      continue;
    }
    for (const m of text.matchAll(EXPORTED_FUNCTION)) {
      const name = m[1] ?? m[2];
      byName.set(name, [...(byName.get(name) ?? []), file]);
    }
  }
  return byName;
}

describe('exported function names', () => {
  const byName = exportedFunctions();

  it('finds the exported functions it checks', () => {
    expect(byName.size).toBeGreaterThan(200);
    expect(byName.get('isHttpUrl')).toEqual(['services/lib/kit/src/net/target-check.ts']);
  });

  it('gives no two exported functions one name, unless they do different jobs (listed with why)', () => {
    const repeated = [...byName].filter(([name, files]) => new Set(files).size > 1 && !(name in DIFFERENT_JOBS));
    expect(repeated.map(([name, files]) => `${name}: ${files.join(', ')}`)).toEqual([]);
  });

  it('lists no name as a different job that is no longer exported twice', () => {
    expect(Object.keys(DIFFERENT_JOBS).filter((name) => new Set(byName.get(name)).size < 2)).toEqual([]);
  });
});
