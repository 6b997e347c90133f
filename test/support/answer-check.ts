import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

/**
 * Every answer the end-to-end tests receive from the gateway is checked against the gateway's
 * own OpenAPI document (`/docs/json`): a success against its operation's 200 schema, an error
 * against the error envelope. So the document's response schemas are tested by every call the
 * suite makes, and an answer that drifts from them fails the test that received it.
 */
type Check = (method: string, path: string, status: number, body: unknown) => string | undefined;

interface Operation {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
  schemaRef?: string;
}

const checkers = new Map<string, Promise<Check | undefined>>();

/** The checker of the gateway at `origin`, or undefined when it serves no OpenAPI document (a fake provider, a subgraph). */
export function answerChecker(origin: string): Promise<Check | undefined> {
  let checker = checkers.get(origin);
  if (!checker) {
    checker = load(origin).catch(() => undefined);
    checkers.set(origin, checker);
  }
  return checker;
}

async function load(origin: string): Promise<Check | undefined> {
  const res = await fetch(`${origin}/docs/json`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) return undefined;
  const doc = (await res.json()) as { openapi?: string; paths: Record<string, Record<string, any>>; components: unknown };
  if (!doc.openapi) return undefined;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (ref: string) => {
    let v = compiled.get(ref);
    if (!v) {
      v = ajv.compile({ $ref: `openapi${ref}` });
      compiled.set(ref, v);
    }
    return v;
  };
  const ops: Operation[] = Object.entries(doc.paths)
    .flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
        params: (path.match(/\{/g) ?? []).length,
        schemaRef: op.responses?.['200']?.content?.['application/json']?.schema?.$ref as string | undefined,
      })),
    )
    // A literal segment wins over a parameter (`/webchat/{id}/messages` before a catch-all).
    .sort((a, b) => a.params - b.params);

  return (method, path, status, body) => {
    const op = ops.find((o) => o.method === method && o.pattern.test(path));
    if (!op) return undefined;
    const ref = status < 300 ? op.schemaRef : status >= 400 ? '#/components/schemas/ErrorEnvelope' : undefined;
    if (!ref) return undefined;
    const validate = validatorOf(ref);
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? [])
      .slice(0, 8)
      .map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
    return `${method} ${path} answered ${status}, which does not match ${ref} of the OpenAPI document:\n  ${errors.join('\n  ')}\n  body: ${JSON.stringify(body).slice(0, 600)}`;
  };
}
