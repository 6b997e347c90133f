import { appName, podLabels, ref, WORKLOAD_KINDS, type Finding, type K8sObject } from './objects';
import { matches } from './selectors';

export type Profile = 'production' | 'default';

/** One image of deploy/image/images: the process package it holds. */
export interface ImageSpec {
  image: string;
  /** The package's folder, e.g. services/messaging: a command must run a file under it. */
  dir: string;
}

export interface PolicyOptions {
  profile: Profile;
  /** When given, every container must run one of these images, with a command inside its package. */
  images?: ImageSpec[];
}

/** The metadata keys of KEDA's Prometheus scaler (keda.sh/docs/latest/scalers/prometheus). */
const PROMETHEUS_TRIGGER_KEYS = new Set([
  'serverAddress',
  'query',
  'queryParameters',
  'threshold',
  'activationThreshold',
  'namespace',
  'customHeaders',
  'ignoreNullValues',
  'unsafeSsl',
  'authModes',
  'timeout',
  'metricName',
]);

type Probe = { grpc?: { port?: number }; httpGet?: { port?: number | string }; tcpSocket?: { port?: number | string } };

type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name?: string; key?: string; optional?: boolean } } };

/**
 * Least privilege for secrets: which keys of the Secret convo-secrets each process may read
 * (deploy/README.md, "2. Create the Secret"). The super-admin token, the Meta and payment secrets
 * reach only the process that checks them.
 */
const SERVICE_KEYS = ['MONGODB_URI', 'SUBGRAPH_TOKEN', 'MESH_SECRET'];
const WORKER_KEYS = ['MONGODB_URI', 'MESH_SECRET'];
/** The platform's own credentials for reading payments (Mercado Pago's token, Efí's OAuth2 client). */
const PAYMENT_API_KEYS = ['PAYMENT_API_TOKEN_GATEWAY_C', 'PAYMENT_CLIENT_ID_GATEWAY_D', 'PAYMENT_CLIENT_SECRET_GATEWAY_D'];
export const SECRET_KEYS: Record<string, string[]> = {
  gateway: [
    'SUPER_ADMIN_TOKEN',
    'SUBGRAPH_TOKEN',
    'MEDIA_URL_SECRET',
    'SESSION_SECRET',
    'META_APP_SECRET',
    'META_VERIFY_TOKEN',
    'MESH_SECRET',
  ],
  tickets: SERVICE_KEYS,
  messaging: [...SERVICE_KEYS, 'MEDIA_URL_SECRET'],
  'channel-engines': SERVICE_KEYS,
  'social-config': SERVICE_KEYS,
  tenants: [...SERVICE_KEYS, ...['A', 'B', 'C', 'D'].map((g) => `PAYMENT_WEBHOOK_SECRET_GATEWAY_${g}`), ...PAYMENT_API_KEYS],
  'tenants-reconciler': [...WORKER_KEYS, ...PAYMENT_API_KEYS],
  'messaging-relay': WORKER_KEYS,
  'messaging-dispatcher': WORKER_KEYS,
};
const APP_SECRET = 'convo-secrets';

/**
 * The independent secrets each process refuses to start without in production (docs/security.md
 * "Authentication"): the session-signing key, the subgraph token and the mesh secret are each
 * their own, none derived from another. Each must come from a Secret (never a literal value); the
 * mesh secret may be replaced by mesh TLS (GRPC_TLS_CA).
 */
const SERVICE_REQUIRED = ['SUBGRAPH_TOKEN', 'MESH_SECRET'];
export const REQUIRED_SECRETS: Record<string, string[]> = {
  gateway: ['SUPER_ADMIN_TOKEN', 'SESSION_SECRET', 'SUBGRAPH_TOKEN', 'MESH_SECRET'],
  tickets: SERVICE_REQUIRED,
  messaging: SERVICE_REQUIRED,
  'channel-engines': SERVICE_REQUIRED,
  'social-config': SERVICE_REQUIRED,
  tenants: SERVICE_REQUIRED,
  'messaging-relay': ['MESH_SECRET'],
  'messaging-dispatcher': ['MESH_SECRET'],
};

type Container = {
  name: string;
  env?: EnvVar[];
  envFrom?: { secretRef?: { name?: string } }[];
  image?: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort?: number }[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    capabilities?: { drop?: string[] };
  };
};

/** Image name without registry, tag or digest: `registry.example.com/convo/convo-tickets:1` → `convo-tickets`. */
const imageName = (image: string): string =>
  image
    .split('@')[0]
    .replace(/:[^/:]+$/, '')
    .split('/')
    .pop()!;
const hasTagOrDigest = (image: string): boolean => image.includes('@') || /:[^/:]+$/.test(image);

function checkWorkload(w: K8sObject, opts: PolicyOptions): Finding[] {
  const findings: Finding[] = [];
  const add = (rule: string, message: string) => findings.push({ object: ref(w), rule, message });
  const pod = w.spec?.template?.spec ?? {};
  const podSecurity = pod.securityContext ?? {};
  const containers: Container[] = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
  if (!(pod.containers ?? []).length) add('containers', 'has no container');
  for (const c of containers) {
    const at = `container ${c.name}`;
    const isInit = (pod.initContainers ?? []).includes(c);
    if (!isInit) {
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'] as const) {
        const p = c[probe];
        if (!p) add('probes', `${at} has no ${probe}`);
        // A probe of a port the container does not declare never succeeds (e.g. moved by a patch).
        const port = p?.grpc?.port ?? p?.httpGet?.port ?? p?.tcpSocket?.port;
        if (port !== undefined && !(c.ports ?? []).some((cp) => cp.containerPort === port || cp.name === port)) {
          add('probes', `${at} ${probe} probes port ${port}, which the container does not declare`);
        }
      }
    }
    for (const from of c.envFrom ?? []) {
      if (from.secretRef) add('secrets', `${at} loads every key of Secret ${from.secretRef.name} (envFrom): give it only the keys it uses`);
    }
    const allowed = SECRET_KEYS[appName(w)] ?? [];
    for (const v of c.env ?? []) {
      const ref = v.valueFrom?.secretKeyRef;
      if (ref?.name === APP_SECRET && !allowed.includes(ref.key ?? ''))
        add('secrets', `${at} reads ${ref.key} of Secret ${APP_SECRET}, which ${appName(w)} does not use`);
    }
    const required = w.kind === 'Deployment' && !isInit ? (REQUIRED_SECRETS[appName(w)] ?? []) : [];
    for (const key of required) {
      const v = (c.env ?? []).find((e) => e.name === key);
      if (key === 'MESH_SECRET' && (c.env ?? []).some((e) => e.name === 'GRPC_TLS_CA')) continue;
      if (!v) add('secrets', `${at} lacks ${key}: ${appName(w)} does not start without it in production`);
      else if (!v.valueFrom?.secretKeyRef)
        add('secrets', `${at} sets ${key} without a Secret (secretKeyRef): a secret is never a literal in the manifests`);
      // The mesh secret may be absent where mesh TLS is patched in (the production overlay).
      else if (v.valueFrom.secretKeyRef.optional && key !== 'MESH_SECRET')
        add('secrets', `${at} reads ${key} as optional: ${appName(w)} does not start without it in production`);
    }
    for (const kind of ['requests', 'limits'] as const) {
      for (const resource of ['cpu', 'memory']) {
        if (c.resources?.[kind]?.[resource] === undefined) add('resources', `${at} has no ${kind}.${resource}`);
      }
    }
    const sc = c.securityContext ?? {};
    if (sc.runAsNonRoot !== true && podSecurity.runAsNonRoot !== true) add('security', `${at} may run as root (runAsNonRoot is not true)`);
    if (podSecurity.runAsUser === 0 || (sc as { runAsUser?: number }).runAsUser === 0) add('security', `${at} runs as uid 0`);
    if (sc.readOnlyRootFilesystem !== true) add('security', `${at} has a writable root filesystem (readOnlyRootFilesystem is not true)`);
    if (sc.allowPrivilegeEscalation !== false) add('security', `${at} allows privilege escalation`);
    if (sc.privileged === true) add('security', `${at} is privileged`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) add('security', `${at} does not drop ALL capabilities`);
    if (!c.image) add('image', `${at} has no image`);
    else if (opts.profile === 'production' && !hasTagOrDigest(c.image)) add('image', `${at} image ${c.image} has no tag or digest`);
    if (c.image && opts.images && w.kind === 'Deployment') {
      const spec = opts.images.find((i) => i.image === imageName(c.image!));
      if (!spec) add('image', `${at} runs ${c.image}, not one of deploy/image/images`);
      else {
        const script = (c.command ?? []).concat(c.args ?? []).find((a) => a.endsWith('.js'));
        if (script && !script.startsWith(`${spec.dir}/`)) add('image', `${at} runs ${script}, which is not in ${spec.image} (${spec.dir})`);
      }
    }
  }
  return findings;
}

/** Everything but the schema and the network: workloads, disruption budgets, autoscaling, Services. */
export function checkPolicies(objects: K8sObject[], opts: PolicyOptions): Finding[] {
  const findings: Finding[] = [];
  const workloads = objects.filter((o) => WORKLOAD_KINDS.has(o.kind));
  const deployments = workloads.filter((o) => o.kind === 'Deployment');
  for (const w of workloads) findings.push(...checkWorkload(w, opts));

  // Autoscalers: their target exists; a Deployment has at most one, and then no replica count.
  const scalers = objects.filter(
    (o) => o.kind === 'HorizontalPodAutoscaler' || (o.kind === 'ScaledObject' && o.apiVersion.startsWith('keda.sh/')),
  );
  const scaled = new Map<string, K8sObject[]>();
  for (const s of scalers) {
    const target = s.spec?.scaleTargetRef ?? {};
    const kind = target.kind ?? 'Deployment';
    const found = workloads.find((w) => w.kind === kind && w.metadata.name === target.name);
    if (!found)
      findings.push({ object: ref(s), rule: 'autoscaling', message: `targets ${kind}/${target.name}, which is not in the manifests` });
    else scaled.set(target.name, [...(scaled.get(target.name) ?? []), s]);
  }
  for (const d of deployments) {
    const own = scaled.get(d.metadata.name) ?? [];
    if (own.length > 1)
      findings.push({ object: ref(d), rule: 'autoscaling', message: `is scaled by ${own.map(ref).join(' and ')}: one autoscaler at most` });
    if (own.length && d.spec?.replicas !== undefined) {
      findings.push({
        object: ref(d),
        rule: 'autoscaling',
        message: `sets replicas (${d.spec.replicas}) although ${ref(own[0])} owns the count: every apply would reset it`,
      });
    }
    if (opts.profile === 'production' && !own.length && (d.spec?.replicas ?? 1) < 2) {
      findings.push({ object: ref(d), rule: 'availability', message: 'runs fewer than 2 replicas and is not autoscaled' });
    }
    for (const s of own) {
      const min = s.kind === 'ScaledObject' ? (s.spec?.minReplicaCount ?? 0) : (s.spec?.minReplicas ?? 1);
      if (opts.profile === 'production' && min < 2)
        findings.push({ object: ref(s), rule: 'availability', message: `lets ${ref(d)} go below 2 replicas (min ${min})` });
    }
  }

  // KEDA trigger metadata is a free-form map in the CRD's schema: check the Prometheus scaler's keys.
  for (const so of scalers.filter((s) => s.kind === 'ScaledObject')) {
    for (const [i, trigger] of (so.spec?.triggers ?? []).entries()) {
      if (trigger.type !== 'prometheus') continue;
      const metadata = (trigger.metadata ?? {}) as Record<string, unknown>;
      for (const key of ['serverAddress', 'query', 'threshold']) {
        if (!metadata[key]) findings.push({ object: ref(so), rule: 'keda', message: `triggers[${i}] (prometheus) has no metadata.${key}` });
      }
      for (const key of Object.keys(metadata)) {
        if (!PROMETHEUS_TRIGGER_KEYS.has(key))
          findings.push({ object: ref(so), rule: 'keda', message: `triggers[${i}] (prometheus): unknown metadata key "${key}"` });
      }
    }
  }

  // Production: a PodDisruptionBudget for every Deployment.
  if (opts.profile === 'production') {
    const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
    for (const d of deployments) {
      const covering = pdbs.filter((p) => p.spec?.selector && matches(p.spec.selector, podLabels(d)));
      if (!covering.length)
        findings.push({ object: ref(d), rule: 'disruption-budget', message: 'no PodDisruptionBudget selects its pods' });
      for (const p of covering) {
        if (p.spec?.maxUnavailable === undefined && p.spec?.minAvailable === undefined) {
          findings.push({ object: ref(p), rule: 'disruption-budget', message: 'sets neither maxUnavailable nor minAvailable' });
        }
      }
    }
  }

  // Services select pods that exist, and target ports those pods have.
  for (const s of objects.filter((o) => o.kind === 'Service')) {
    const selector = s.spec?.selector as Record<string, string> | undefined;
    if (!selector) continue;
    const backing = workloads.filter((w) => matches({ matchLabels: selector }, podLabels(w)));
    if (!backing.length) {
      findings.push({ object: ref(s), rule: 'service', message: 'selects no pod of the manifests' });
      continue;
    }
    for (const port of s.spec?.ports ?? []) {
      if (typeof port.targetPort !== 'string') continue;
      const named = backing.some((w) =>
        (w.spec?.template?.spec?.containers ?? []).some((c: Container & { ports?: Array<{ name?: string }> }) =>
          (c.ports ?? []).some((p) => p.name === port.targetPort),
        ),
      );
      if (!named)
        findings.push({
          object: ref(s),
          rule: 'service',
          message: `targetPort ${port.targetPort} is no container port of ${backing.map(appName).join(', ')}`,
        });
    }
  }
  return findings;
}
