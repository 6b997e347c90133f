#!/usr/bin/env node
// Writes test/provider-specs/: the parts of the providers' own request definitions that the drivers'
// conformance test (test/drivers/provider-specs.test.ts) validates requests against, so that the
// test runs on a clean clone. Read from a folder of provider specs converted to JSON (the team's
// shared reference: each file carries `x-source`, naming the provider's repository, path and commit).
//
//   node scripts/extract-provider-specs.mjs <provider-specs folder>
//
// Kept per provider: the operations the drivers call (method and path template), every component
// they reference (transitively), the security schemes, and the hand-written known defects
// (quirks.json) and missing shapes (supplements.json) of those operations. Nothing is rewritten:
// the test reads the schemas as the provider published them.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const from = process.argv[2];
if (!from) {
  console.error('usage: node scripts/extract-provider-specs.mjs <provider-specs folder>');
  process.exit(2);
}
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'provider-specs');

/** Per provider file: the operations kept, as "METHOD <path template>" or a path prefix ending in "*". */
const KEEP = {
  'meta-whatsapp': ['POST /{Version}/{Phone-Number-ID}/messages', 'POST /{Version}/{Phone-Number-ID}/marketing_messages'],
  'meta-messenger': ['POST /{Version}/{Page-ID}/messages', 'POST /{Version}/{Page-ID}/message_attachments'],
  'evolution-v2': [
    'POST /message/*',
    'POST /chat/sendPresence/{instanceName}',
    'POST /chat/whatsappNumbers/{instanceName}',
    'POST /chat/updateMessage/{instanceName}',
    'DELETE /chat/deleteMessageForEveryone/{instanceName}',
  ],
  // engine_h: the message changes only (its sends are not checked yet).
  'evolution-v1': [
    'POST /message/sendReaction/{instanceName}',
    'PUT /chat/updateMessage/{instanceName}',
    'DELETE /chat/deleteMessageForEveryone/{instanceName}',
  ],
  uazapi: [
    'POST /send/*',
    'POST /message/presence',
    'POST /chat/check',
    'POST /message/react',
    'POST /message/edit',
    'POST /message/delete',
  ],
};

/**
 * Known defects of a spec found here, beside the shared quirks.json, each with its evidence (the
 * provider's own page that contradicts the spec).
 */
const LOCAL_QUIRKS = [
  {
    family: 'meta-messenger',
    operation: 'POST /{Version}/{Page-ID}/messages',
    where: 'body',
    keyword: 'type',
    instancePath: '^/payload$',
    reason:
      'Page.json types the Send API\'s `payload` as a string (Graph parameters as form fields), but Meta\'s own Messenger Platform page "Sender Actions" (React or unreact to a message) sends it as the JSON object { message_id, reaction } in a JSON body',
  },
];

const kept = (family, method, path) =>
  KEEP[family].some((rule) => {
    const [m, p] = rule.split(' ');
    return m === method.toUpperCase() && (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p);
  });

/** Every local $ref ("#/components/<kind>/<name>") reachable from `node`, followed through the document. */
function references(doc, node, found = new Set()) {
  if (Array.isArray(node)) node.forEach((n) => references(doc, n, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && !found.has(value)) {
        found.add(value);
        references(doc, resolve(doc, value), found);
      } else references(doc, value, found);
    }
  }
  return found;
}

function resolve(doc, ref) {
  return ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((at, key) => at?.[key], doc);
}

const read = (name) => JSON.parse(readFileSync(join(from, name), 'utf8'));
const quirks = read('quirks.json');
quirks.quirks.push(...LOCAL_QUIRKS);
const supplements = read('supplements.json');
const sources = read('SOURCES.json');
mkdirSync(out, { recursive: true });

for (const family of Object.keys(KEEP)) {
  const doc = read(`${family}.json`);
  const paths = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!kept(family, method, path)) continue;
      // Request parts only: the drivers' requests are what is checked.
      const { responses: _responses, ...request } = op;
      (paths[path] ??= {})[method] = request;
    }
  }
  const components = {};
  for (const ref of [...references(doc, paths), ...references(doc, doc.security ?? [])].sort()) {
    const [, , kind, name] = ref.split('/');
    (components[kind] ??= {})[name] = doc.components[kind][name];
  }
  if (doc.components?.securitySchemes) components.securitySchemes = doc.components.securitySchemes;
  const operations = new Set(Object.entries(paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)));
  const applies = (e) => e.family === family && (!e.operation || operations.has(e.operation));
  const source = sources.find((s) => s.family === family);
  const extract = {
    $comment: `Extracted by services/channel-engines/scripts/extract-provider-specs.mjs from ${source.repo} ${source.path} at ${source.commit} (${source.date}): ${source.authority}. Only the operations the drivers call and what they reference; do not edit, run the script again.`,
    'x-source': doc['x-source'],
    openapi: doc.openapi,
    ...(doc['x-schema-dialect'] && { 'x-schema-dialect': doc['x-schema-dialect'] }),
    ...(doc.security && { security: doc.security }),
    paths,
    components,
    'x-quirks': quirks.quirks.filter(applies),
    'x-supplements': supplements.supplements.filter(applies),
  };
  writeFileSync(join(out, `${family}.json`), `${JSON.stringify(extract, null, 1)}\n`);
  console.log(
    `${family}: ${operations.size} operations, ${Object.values(components).reduce((n, c) => n + Object.keys(c).length, 0)} components`,
  );
}
