import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The installation's secrets that npm start keeps in `.data/` (each its own file, each its own random value). */
export const KEPT_SECRETS = {
  SUPER_ADMIN_TOKEN: 'super-admin-token',
  SESSION_SECRET: 'session-secret',
  SUBGRAPH_TOKEN: 'subgraph-token',
  MESH_SECRET: 'mesh-secret',
} as const;
export type KeptSecret = keyof typeof KEPT_SECRETS;

/** A secret kept in `dataDir` across starts, generated on the first. */
export function keptSecret(dataDir: string, name: KeptSecret): string {
  const file = join(dataDir, KEPT_SECRETS[name]);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  } catch {
    // first start
  }
  const secret = randomBytes(name === 'SUPER_ADMIN_TOKEN' ? 24 : 32).toString('base64url');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
