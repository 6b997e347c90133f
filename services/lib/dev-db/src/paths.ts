import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** The monorepo root: the nearest folder above this module whose package.json declares workspaces. */
export function findRepoRoot(from: string = __dirname): string | null {
  let dir = from;
  for (;;) {
    if (declaresWorkspaces(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function declaresWorkspaces(packageJson: string): boolean {
  if (!existsSync(packageJson)) return false;
  try {
    return 'workspaces' in JSON.parse(readFileSync(packageJson, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Where FerretDB's source, binary and per-run data live. `.cache/` is git-ignored; the temp-dir
 * fallback only matters if this package is ever used outside the monorepo.
 */
export function ferretDbHome(): string {
  const root = findRepoRoot();
  return root ? join(root, '.cache', 'ferretdb') : join(tmpdir(), 'convo-dev-db', 'ferretdb');
}

export function cachedFerretDbBinary(): string {
  return join(ferretDbHome(), 'bin', 'ferretdb');
}

export function runRoot(): string {
  return join(ferretDbHome(), 'run');
}

/** Like `which`: the first executable called `name` on PATH. */
export function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
