/**
 * The path segments of the interactive and social routes: the seed names each engine neutrally
 * (`engine_a` …), the product's API page by its real name. Both names reach one route definition
 * (one schema, one handler); the OpenAPI document marks the real names as aliases
 * (`x-alias-of`, openapi/document.ts).
 */
export const SEGMENT_ALIASES = {
  engine_a: 'baileys',
  engine_b: 'zapo',
  engine_c: 'uazapi',
  social_a: 'instagram',
  social_b: 'messenger',
} as const;

export type Segment = keyof typeof SEGMENT_ALIASES;

const SEGMENT_RE = new RegExp(`/(${Object.keys(SEGMENT_ALIASES).join('|')})(?=/)`);
const ALIAS_TO_SEGMENT = new Map<string, string>(Object.entries(SEGMENT_ALIASES).map(([seed, real]) => [real, seed]));
const ALIAS_RE = new RegExp(`/(${[...ALIAS_TO_SEGMENT.keys()].join('|')})(?=/)`);

/** The path under its seed name and, when it has a segment, under the real name: `[seedPath, aliasPath?]`. */
export function pathsOf(path: string): string[] {
  const alias = path.replace(SEGMENT_RE, (_, seed: Segment) => `/${SEGMENT_ALIASES[seed]}`);
  return alias === path ? [path] : [path, alias];
}

/** The seed's path of an alias path (`/sendInteractive/baileys/…` → `/sendInteractive/engine_a/…`); undefined for any other path. */
export function seedPathOf(path: string): string | undefined {
  const seed = path.replace(ALIAS_RE, (_, real: string) => `/${ALIAS_TO_SEGMENT.get(real)}`);
  return seed === path ? undefined : seed;
}
