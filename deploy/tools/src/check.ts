import { readFileSync } from 'node:fs';
import { checkGrpcAddresses } from './grpc-addr';
import { checkNetwork } from './network';
import { parseManifests, ref, type Finding, type K8sObject } from './objects';
import { checkPolicies, type ImageSpec, type Profile } from './policy';
import { validateSchema } from './schema';

export type { Finding, K8sObject, Profile, ImageSpec };

/** The production profile belongs to the overlay named production; every other one is checked as default. */
export const profileOf = (overlay: string): Profile => (/(^|\/)production\/?$/.test(overlay) ? 'production' : 'default');

/** deploy/image/images: `image workspace main` per line. */
export function readImages(path: string): ImageSpec[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [image, , main] = l.split(/\s+/);
      return { image, dir: main.slice(0, main.indexOf('/dist/')) };
    });
}

/** Every finding of a rendered overlay (or any manifests): schema, policies, gRPC addresses, network. */
export async function checkManifests(text: string, opts: { profile: Profile; images?: ImageSpec[] }): Promise<Finding[]> {
  const { objects, findings } = parseManifests(text);
  const seen = new Set<string>();
  for (const o of objects) {
    const key = `${o.metadata?.namespace ?? ''}/${ref(o)}`;
    if (seen.has(key)) findings.push({ object: ref(o), rule: 'duplicate', message: 'appears twice' });
    seen.add(key);
    findings.push(...(await validateSchema(o)));
  }
  findings.push(...checkPolicies(objects, opts));
  findings.push(...checkGrpcAddresses(objects));
  findings.push(...checkNetwork(objects, { requireIsolation: opts.profile === 'production' }));
  return findings;
}

export const formatFinding = (f: Finding): string => `  ✗ ${f.object} [${f.rule}] ${f.message}`;
