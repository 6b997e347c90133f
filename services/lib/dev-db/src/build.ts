import { chmod, cp, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from './exec';
import { withLock } from './lock';
import { cachedFerretDbBinary, ferretDbHome, findOnPath, isExecutable } from './paths';

export const FERRETDB_MODULE = 'github.com/FerretDB/FerretDB';
export const FERRETDB_VERSION = 'v1.24.2';

// A cold build downloads ~100 modules; allow slow networks before giving up on another builder.
const LOCK_TIMEOUT_MS = 15 * 60_000;
const GO_TIMEOUT_MS = 15 * 60_000;

/** `unexpected`: an error of the database itself (ferretdb-log.ts), recorded beyond the log. */
export type Log = (line: string, unexpected?: boolean) => void;

/**
 * Builds FerretDB into `<repoRoot>/.cache/ferretdb/bin/ferretdb` unless it is already there.
 * Returns the binary, or null when it is absent and Go is not installed.
 */
export async function ensureFerretDb(log: Log = () => {}): Promise<string | null> {
  const binary = cachedFerretDbBinary();
  if (isExecutable(binary)) return binary;
  const go = findOnPath('go');
  if (!go) return null;

  const home = ferretDbHome();
  await mkdir(home, { recursive: true });
  const onWait = () => log('Waiting for another process that is building FerretDB...');
  return withLock(join(home, 'build.lock'), LOCK_TIMEOUT_MS, onWait, async () => {
    // Whoever held the lock before us may have just finished the same build.
    if (isExecutable(binary)) return binary;
    await build(go, home, binary, log);
    return binary;
  });
}

async function build(go: string, home: string, binary: string, log: Log): Promise<void> {
  const started = Date.now();
  log(`Building FerretDB ${FERRETDB_VERSION} with ${go} (about 2 minutes the first time)...`);
  const moduleDir = await downloadModule(go);
  const srcDir = join(home, 'src');
  await copyWritable(moduleDir, srcDir);
  // `go install module@version` is not usable here, and the module zip lacks this generated file,
  // without which the binary panics at startup.
  await writeFile(join(srcDir, 'build', 'version', 'version.txt'), `${FERRETDB_VERSION}\n`);

  await mkdir(join(home, 'bin'), { recursive: true });
  // Build under a temporary name so a concurrent reader never sees a half-written binary.
  const partial = `${binary}.partial-${process.pid}`;
  try {
    await exec(go, ['build', '-o', partial, './cmd/ferretdb'], { cwd: srcDir, env: goEnv(), timeoutMs: GO_TIMEOUT_MS });
    await verify(partial);
    await rename(partial, binary);
  } finally {
    await rm(partial, { force: true });
  }
  log(`Built ${binary} in ${Math.round((Date.now() - started) / 1000)}s`);
}

/**
 * `-mod=mod` lets go resolve the module outside a prepared workspace; `-buildvcs=false` because the
 * copy sits inside this repo's git checkout, whose status has nothing to do with FerretDB's version.
 */
function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod -buildvcs=false`.trim() };
}

interface ModuleDownload {
  Dir?: string;
  Error?: string;
}

/** Fetches the FerretDB module into Go's module cache and returns its (read-only) folder. */
async function downloadModule(go: string): Promise<string> {
  // `go mod download` needs module mode, hence a throwaway go.mod.
  const scratch = await mkdtemp(join(tmpdir(), 'ferretbuild-'));
  try {
    await writeFile(join(scratch, 'go.mod'), 'module ferretbuild\n\ngo 1.24\n');
    const output = await exec(go, ['mod', 'download', '-json', `${FERRETDB_MODULE}@${FERRETDB_VERSION}`], {
      cwd: scratch,
      env: goEnv(),
      timeoutMs: GO_TIMEOUT_MS,
    });
    const info = JSON.parse(output) as ModuleDownload;
    if (info.Error || !info.Dir) throw new Error(`go mod download failed: ${info.Error ?? 'no Dir in its output'}`);
    return info.Dir;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The module cache is read-only, and the copy must be writable both to add version.txt and to be deleted later. */
async function copyWritable(from: string, to: string): Promise<void> {
  // A copy interrupted before makeWritable would otherwise be undeletable for non-root users.
  await makeWritable(to).catch(() => {});
  await rm(to, { recursive: true, force: true });
  await cp(from, to, { recursive: true });
  await makeWritable(to);
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else if (entry.isFile()) await chmod(path, 0o644);
  }
}

async function verify(binary: string): Promise<void> {
  const output = await exec(binary, ['--version'], { timeoutMs: 30_000 });
  if (!output.includes(FERRETDB_VERSION)) {
    throw new Error(`${binary} --version did not report ${FERRETDB_VERSION}:\n${output}`);
  }
}
