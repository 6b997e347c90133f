// deploy/check's engine: renders each overlay with kustomize and checks the result offline.
//
//   node dist/cli.js [--kustomize BIN] [--images FILE] [OVERLAY_DIR ...]     (default: every deploy/overlays/*)
//   node dist/cli.js [--profile production|default] [--images FILE] --file MANIFESTS.yaml|-
//
// Prints what it checked and every finding; exits 1 when there is any, 2 when it could not run.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { checkManifests, formatFinding, profileOf, readImages, type Profile } from './check';

const repo = resolve(__dirname, '..', '..', '..');

function parseArgs(argv: string[]) {
  const opts: { kustomize: string; images?: string; profile?: Profile; file?: string; overlays: string[] } = {
    kustomize: process.env.KUSTOMIZE ?? 'kustomize',
    images: join(repo, 'deploy', 'image', 'images'),
    overlays: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--kustomize') opts.kustomize = value();
    else if (a === '--images') opts.images = value();
    else if (a === '--no-images') opts.images = undefined;
    else if (a === '--profile') opts.profile = value() as Profile;
    else if (a === '--file') opts.file = value();
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else opts.overlays.push(a);
  }
  return opts;
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const images = opts.images ? readImages(opts.images) : undefined;
  const inputs: Array<{ name: string; profile: Profile; text: () => string }> = [];
  if (opts.file) {
    const file = opts.file;
    inputs.push({ name: file, profile: opts.profile ?? 'default', text: () => readFileSync(file === '-' ? 0 : file, 'utf8') });
  } else {
    const overlays = opts.overlays.length
      ? opts.overlays
      : readdirSync(join(repo, 'deploy', 'overlays'))
          .map((d) => join(repo, 'deploy', 'overlays', d))
          .filter((d) => existsSync(join(d, 'kustomization.yaml')));
    for (const dir of overlays) {
      inputs.push({
        name: `overlay ${basename(dir)}`,
        profile: opts.profile ?? profileOf(resolve(dir)),
        text: () =>
          execFileSync(opts.kustomize, ['build', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }),
      });
    }
  }
  let failed = 0;
  for (const input of inputs) {
    let text: string;
    try {
      text = input.text();
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      console.log(`✗ ${input.name}: cannot render: ${(e.stderr || e.message).trim()}`);
      failed++;
      continue;
    }
    const findings = await checkManifests(text, { profile: input.profile, images });
    const count = (text.match(/^kind:/gm) ?? []).length;
    if (findings.length) {
      console.log(`✗ ${input.name} (${input.profile} profile, ${count} objects): ${findings.length} problem(s)`);
      for (const f of findings) console.log(formatFinding(f));
      failed++;
    } else {
      console.log(
        `✓ ${input.name} (${input.profile} profile, ${count} objects): schema, probes, resources, security, secrets, autoscaling, disruption budgets, gRPC addresses, network flows`,
      );
    }
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    console.error(`deploy check: ${err.message}`);
    process.exit(2);
  },
);
