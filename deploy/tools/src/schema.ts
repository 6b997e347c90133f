import { ref, type Finding, type K8sObject } from './objects';

// Strict schema validation of every object, offline, with the kubernetes-models packages (the
// Kubernetes OpenAPI schemas compiled to validators, plus the CRD packages of KEDA, the
// Prometheus Operator and cert-manager). Their validators check types, enums and required fields but accept any
// unknown property; "strict" (as kubectl --validate=strict) is added here: the data is wrapped
// in proxies that record which properties the validator reads. A validator reads every property
// its schema declares (and enumerates maps), so a property of an object it looked into but never
// read is one the schema does not have: a misspelled field.

/** Where the models of each API group live; the core group is "kubernetes-models/v1". */
const CRD_PACKAGES: Record<string, string> = {
  'keda.sh': '@kubernetes-models/keda',
  'eventing.keda.sh': '@kubernetes-models/keda',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
  'cert-manager.io': '@kubernetes-models/cert-manager',
};

type ModelClass = { prototype: { validate(this: unknown): void } };
const modules = new Map<string, Promise<Record<string, ModelClass> | undefined>>();

// Kept as a real import() in the CommonJS output (tsconfig module node16): the packages are ES
// modules only.
const load = (specifier: string) =>
  import(specifier).then(
    (m) => m as Record<string, ModelClass>,
    () => undefined,
  );

async function modelOf(apiVersion: string, kind: string): Promise<ModelClass | undefined> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const specifier = group ? `${CRD_PACKAGES[group] ?? 'kubernetes-models'}/${group}/${version}` : `kubernetes-models/${version}`;
  if (!modules.has(specifier)) modules.set(specifier, load(specifier));
  return (await modules.get(specifier))?.[kind];
}

interface Visit {
  value: Record<string, unknown>;
  read: Set<string>;
}

/** Wraps `value` so that reads are recorded per JSON pointer in `visits`. */
function track(value: unknown, path: string, visits: Map<string, Visit>): unknown {
  if (value === null || typeof value !== 'object') return value;
  const read = new Set<string>();
  visits.set(path, { value: value as Record<string, unknown>, read });
  const children = new Map<string, unknown>();
  return new Proxy(value as object, {
    get(target, key, receiver) {
      const v = Reflect.get(target, key, receiver);
      if (typeof key !== 'string') return v;
      read.add(key);
      if (v === null || typeof v !== 'object') return v;
      if (!children.has(key)) children.set(key, track(v, `${path}/${key}`, visits));
      return children.get(key);
    },
    has(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.has(target, key);
    },
    ownKeys(target) {
      for (const key of Reflect.ownKeys(target)) if (typeof key === 'string') read.add(key);
      return Reflect.ownKeys(target);
    },
  });
}

interface AjvError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

const describe = (e: AjvError): string => {
  const at = e.instancePath || '/';
  if (e.keyword === 'required') return `${at}: missing required field "${String(e.params?.missingProperty)}"`;
  if (e.keyword === 'enum') return `${at}: must be one of ${JSON.stringify(e.params?.allowedValues)}`;
  if (e.keyword === 'type') return `${at}: must be ${String(e.params?.type)}`;
  return `${at}: ${e.message ?? e.keyword ?? 'is invalid'}`;
};

/** Schema findings of one object: unknown kind, schema violations, unknown (misspelled) fields. */
export async function validateSchema(object: K8sObject): Promise<Finding[]> {
  const name = ref(object);
  if (typeof object.apiVersion !== 'string' || typeof object.kind !== 'string') {
    return [{ object: name, rule: 'schema', message: 'apiVersion and kind are required' }];
  }
  const model = await modelOf(object.apiVersion, object.kind);
  if (!model) {
    return [
      {
        object: name,
        rule: 'schema',
        message: `no schema for ${object.apiVersion} ${object.kind} (unknown API, or a CRD package is missing)`,
      },
    ];
  }
  const findings: Finding[] = [];
  const visits = new Map<string, Visit>();
  try {
    model.prototype.validate.call(track(object, '', visits));
  } catch (err) {
    const errors = ((err as { errors?: AjvError[] }).errors ?? []) as AjvError[];
    const unique = [...new Set(errors.length ? errors.map(describe) : [(err as Error).message])];
    for (const message of unique.slice(0, 10)) findings.push({ object: name, rule: 'schema', message });
  }
  for (const [path, { value, read }] of visits) {
    // An object the validator never looked into (free-form, e.g. x-kubernetes-preserve-unknown-fields)
    // is not judged; arrays have no field names.
    if (Array.isArray(value) || read.size === 0) continue;
    for (const key of Object.keys(value)) {
      if (!read.has(key)) findings.push({ object: name, rule: 'schema', message: `${path}/${key}: unknown field "${key}"` });
    }
  }
  return findings;
}
