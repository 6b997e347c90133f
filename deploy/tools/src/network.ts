import { appName, podLabels, ref, WORKLOAD_KINDS, type Finding, type K8sObject } from './objects';
import { isEmptySelector, matches, type LabelSelector } from './selectors';

// A small NetworkPolicy evaluator for the subset these manifests use (pod and namespace
// selectors, ipBlock, numeric, ranged and named ports), and the flows the processes need.

interface Pod {
  app: string;
  labels: Record<string, string>;
  component?: string;
  ports: Array<{ name?: string; containerPort: number; protocol?: string }>;
}

/** A destination or source: a pod of this namespace, or anything outside it. */
type Peer = { pod: Pod } | { outside: true };

interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface Rule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: PolicyPort[];
}
interface Policy {
  name: string;
  podSelector: LabelSelector;
  types: Set<'Ingress' | 'Egress'>;
  ingress: Rule[];
  egress: Rule[];
}

function policiesOf(objects: K8sObject[]): Policy[] {
  return objects
    .filter((o) => o.kind === 'NetworkPolicy')
    .map((o) => {
      const spec = o.spec ?? {};
      const types = new Set<'Ingress' | 'Egress'>(spec.policyTypes ?? ['Ingress', ...(spec.egress ? ['Egress' as const] : [])]);
      return { name: o.metadata.name, podSelector: spec.podSelector ?? {}, types, ingress: spec.ingress ?? [], egress: spec.egress ?? [] };
    });
}

function podsOf(objects: K8sObject[]): Pod[] {
  return objects
    .filter((o) => WORKLOAD_KINDS.has(o.kind))
    .map((w) => ({
      app: appName(w),
      labels: podLabels(w),
      component: podLabels(w)['app.kubernetes.io/component'],
      ports: (w.spec?.template?.spec?.containers ?? []).flatMap((c: { ports?: Pod['ports'] }) => c.ports ?? []),
    }));
}

/** Whether a rule's peer list lets `peer` through (seen from a pod of this namespace). */
function peerMatches(peers: PolicyPeer[] | undefined, peer: Peer): boolean {
  if (!peers || peers.length === 0) return true;
  return peers.some((p) => {
    if ('outside' in peer) return !!p.ipBlock || (!!p.namespaceSelector && !p.podSelector);
    if (p.ipBlock) return false;
    // No namespaceSelector: this namespace; an empty one: every namespace, this one included.
    if (p.namespaceSelector && !isEmptySelector(p.namespaceSelector)) return false;
    return matches(p.podSelector, peer.pod.labels);
  });
}

/** Whether a rule's ports let `port`/`protocol` of `target` (a pod, for named ports) through. */
function portMatches(ports: PolicyPort[] | undefined, port: number, protocol: string, target?: Pod): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') {
      return !!target?.ports.some((c) => c.name === p.port && c.containerPort === port && (c.protocol ?? 'TCP') === protocol);
    }
    return p.endPort ? port >= p.port && port <= p.endPort : port === p.port;
  });
}

function allowed(policies: Policy[], direction: 'Ingress' | 'Egress', subject: Pod, other: Peer, port: number, protocol: string): boolean {
  const selecting = policies.filter((p) => p.types.has(direction) && matches(p.podSelector, subject.labels));
  if (selecting.length === 0) return true; // not isolated in this direction
  return selecting.some((p) =>
    (direction === 'Ingress' ? p.ingress : p.egress).some(
      (r) =>
        peerMatches(direction === 'Ingress' ? r.from : r.to, other) &&
        portMatches(r.ports, port, protocol, direction === 'Ingress' ? subject : 'pod' in other ? other.pod : undefined),
    ),
  );
}

/** A flow the processes need: `from` (an app, or outside) to `to` (an app's named port, or outside). */
export interface Flow {
  from: string | 'outside';
  to: string | 'outside';
  /** A container port name of `to`, or a number (outside). */
  port: string | number;
  protocol?: 'TCP' | 'UDP';
  why: string;
}

const SERVICES = ['tickets', 'messaging', 'channel-engines', 'social-config', 'tenants'];

/**
 * The call graph (README "Processes and ports", each process's *_GRPC_ADDR) and what leaves the
 * namespace. `*` in `from` means every process; `backend` every process labelled
 * app.kubernetes.io/component=backend.
 */
export const REQUIRED_FLOWS: Flow[] = [
  { from: '*', to: 'outside', port: 53, protocol: 'UDP', why: 'DNS' },
  { from: '*', to: 'outside', port: 53, protocol: 'TCP', why: 'DNS' },
  { from: '*', to: 'outside', port: 4318, why: 'OTLP/HTTP collector (trace export)' },
  { from: 'backend', to: 'outside', port: 27017, why: 'MongoDB' },
  { from: 'outside', to: 'gateway', port: 'http', why: 'clients reach the gateway' },
  ...SERVICES.flatMap((s) => [
    { from: 'gateway', to: s, port: 'grpc', why: 'REST facade → service' },
    { from: 'gateway', to: s, port: 'graphql', why: 'federated GraphQL → subgraph' },
  ]),
  ...['tickets', 'tenants', 'channel-engines'].map((s) => ({ from: 'messaging', to: s, port: 'grpc', why: 'messaging → peer' })),
  { from: 'tickets', to: 'tenants', port: 'grpc', why: "a user named on a ticket is a user of the ticket's tenant" },
  { from: 'social-config', to: 'tenants', port: 'grpc', why: 'channel credentials' },
  { from: 'messaging-relay', to: 'tenants', port: 'grpc', why: 'webhook targets and secrets' },
  ...['tenants', 'tickets', 'channel-engines'].map((s) => ({
    from: 'messaging-dispatcher',
    to: s,
    port: 'grpc',
    why: 'dispatcher → peer',
  })),
  ...['channel-engines', 'social-config', 'messaging', 'messaging-relay'].map((s) => ({
    from: s,
    to: 'outside',
    port: 443,
    why: 'providers / media / customer webhooks over HTTPS',
  })),
];

/**
 * Network findings: in `requireIsolation` mode (production) every pod must be isolated both ways
 * (a default deny), and every required flow between the processes present must be allowed, as
 * must Prometheus's scrape of each PodMonitor's targets.
 */
export function checkNetwork(objects: K8sObject[], { requireIsolation }: { requireIsolation: boolean }): Finding[] {
  const findings: Finding[] = [];
  const policies = policiesOf(objects);
  const pods = podsOf(objects).filter((p) => p.app !== 'mongodb');
  if (requireIsolation) {
    for (const pod of pods) {
      for (const direction of ['Ingress', 'Egress'] as const) {
        if (!policies.some((p) => p.types.has(direction) && matches(p.podSelector, pod.labels))) {
          findings.push({
            object: `Deployment/${pod.app}`,
            rule: 'network-policy',
            message: `no NetworkPolicy isolates its ${direction.toLowerCase()} (add a default deny)`,
          });
        }
      }
    }
    if (
      !policies.some(
        (p) => isEmptySelector(p.podSelector) && p.types.has('Ingress') && p.types.has('Egress') && !p.ingress.length && !p.egress.length,
      )
    ) {
      findings.push({
        object: '(namespace)',
        rule: 'network-policy',
        message: 'no default-deny NetworkPolicy for both Ingress and Egress',
      });
    }
  }
  if (policies.length === 0) return findings; // nothing restricts traffic

  const byApp = new Map(pods.map((p) => [p.app, p]));
  const sources = (from: string) =>
    from === '*' ? pods : from === 'backend' ? pods.filter((p) => p.component === 'backend') : byApp.has(from) ? [byApp.get(from)!] : [];
  for (const flow of REQUIRED_FLOWS) {
    const protocol = flow.protocol ?? 'TCP';
    if (flow.from === 'outside') {
      const target = byApp.get(flow.to);
      const port = target?.ports.find((c) => c.name === flow.port)?.containerPort;
      if (!target || port === undefined) continue;
      if (!allowed(policies, 'Ingress', target, { outside: true }, port, protocol)) {
        findings.push({
          object: `Deployment/${target.app}`,
          rule: 'network-policy',
          message: `ingress from outside on ${flow.port} (${port}) is blocked: ${flow.why}`,
        });
      }
      continue;
    }
    for (const source of sources(flow.from)) {
      if (flow.to === 'outside') {
        if (!allowed(policies, 'Egress', source, { outside: true }, Number(flow.port), protocol)) {
          findings.push({
            object: `Deployment/${source.app}`,
            rule: 'network-policy',
            message: `egress to ${protocol} ${flow.port} is blocked: ${flow.why}`,
          });
        }
        continue;
      }
      const target = byApp.get(flow.to);
      if (!target) continue; // the overlay does not run it
      const port = target.ports.find((c) => c.name === flow.port)?.containerPort;
      if (port === undefined) {
        findings.push({
          object: `Deployment/${target.app}`,
          rule: 'network-policy',
          message: `has no container port named ${flow.port} (${flow.why})`,
        });
        continue;
      }
      const egress = allowed(policies, 'Egress', source, { pod: target }, port, protocol);
      const ingress = allowed(policies, 'Ingress', target, { pod: source }, port, protocol);
      if (!egress || !ingress) {
        findings.push({
          object: `Deployment/${source.app}`,
          rule: 'network-policy',
          message: `${source.app} → ${target.app}:${flow.port} (${port}) is blocked by its ${!egress ? 'egress' : 'ingress at the target'}: ${flow.why}`,
        });
      }
    }
  }
  // Prometheus (another namespace) scrapes each PodMonitor's targets.
  for (const monitor of objects.filter((o) => o.kind === 'PodMonitor')) {
    for (const pod of pods.filter((p) => matches(monitor.spec?.selector, p.labels))) {
      for (const endpoint of monitor.spec?.podMetricsEndpoints ?? []) {
        const port = pod.ports.find((c) => c.name === endpoint.port)?.containerPort;
        if (port === undefined) {
          findings.push({ object: ref(monitor), rule: 'monitoring', message: `${pod.app} has no port named ${endpoint.port}` });
        } else if (!allowed(policies, 'Ingress', pod, { outside: true }, port, 'TCP')) {
          findings.push({
            object: `Deployment/${pod.app}`,
            rule: 'network-policy',
            message: `Prometheus cannot scrape ${endpoint.port} (${port}) (${ref(monitor)})`,
          });
        }
      }
    }
  }
  return findings;
}
