import { appName, podLabels, ref, WORKLOAD_KINDS, type Finding, type K8sObject } from './objects';
import { matches } from './selectors';

// The gRPC peers' addresses (*_GRPC_ADDR) in the manifests. The kit's clients spread their calls
// over a service's replicas with grpc-js round_robin only for a `dns:///host:port` target whose name
// resolves to every pod (services/lib/kit/src/grpc/client.ts, grpcTarget): a headless Service.
// A `host:port` address, or a ClusterIP Service's name, gives one HTTP/2 connection to one pod.

const ADDR_KEY = /_GRPC_ADDR$/;
/** `dns:///host:port`, `dns://resolver/host:port` or `dns:host:port`. */
const DNS_TARGET = /^dns:(?:\/\/[^/]*\/)?([A-Za-z0-9.-]+):(\d{1,5})$/;

interface Address {
  /** The ConfigMap or the workload that sets it. */
  object: string;
  /** `container x: ` when a container's env sets it. */
  where: string;
  key: string;
  value: string;
}

function addresses(objects: K8sObject[]): Address[] {
  const found: Address[] = [];
  for (const cm of objects.filter((o) => o.kind === 'ConfigMap')) {
    for (const [key, value] of Object.entries((cm as { data?: Record<string, string> }).data ?? {})) {
      if (ADDR_KEY.test(key)) found.push({ object: ref(cm), where: '', key, value: String(value) });
    }
  }
  for (const w of objects.filter((o) => WORKLOAD_KINDS.has(o.kind))) {
    const pod = w.spec?.template?.spec ?? {};
    for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])] as Array<{
      name: string;
      env?: Array<{ name: string; value?: string }>;
    }>) {
      for (const v of c.env ?? []) {
        if (ADDR_KEY.test(v.name) && v.value !== undefined)
          found.push({ object: ref(w), where: `container ${c.name}: `, key: v.name, value: v.value });
      }
    }
  }
  return found;
}

type Port = { name?: string; containerPort?: number };

/** The container port a Service port reaches on a workload's pods (undefined: none). */
function containerPort(w: K8sObject, target: number | string): number | undefined {
  if (typeof target === 'number') return target;
  const ports: Port[] = (w.spec?.template?.spec?.containers ?? []).flatMap((c: { ports?: Port[] }) => c.ports ?? []);
  return ports.find((p) => p.name === target)?.containerPort;
}

/**
 * Every *_GRPC_ADDR (in a ConfigMap, or a container's literal env) must be a `dns:` target naming a
 * headless Service of the manifests that publishes only ready pods and whose pods listen on the
 * address's port (a headless name resolves to pod IPs: no port mapping); and where the pods behind
 * it hold a cert-manager Certificate (mesh TLS), that certificate must name the host dialed, the
 * name clients check.
 */
export function checkGrpcAddresses(objects: K8sObject[]): Finding[] {
  const findings: Finding[] = [];
  const services = objects.filter((o) => o.kind === 'Service');
  const workloads = objects.filter((o) => WORKLOAD_KINDS.has(o.kind));
  const certificates = objects.filter((o) => o.kind === 'Certificate' && o.apiVersion.startsWith('cert-manager.io/'));
  for (const a of addresses(objects)) {
    const add = (message: string) =>
      findings.push({ object: a.object, rule: 'grpc-address', message: `${a.where}${a.key}=${a.value} ${message}` });
    const m = DNS_TARGET.exec(a.value.trim());
    if (!m) {
      add('is not a dns:/// address of a headless Service: the client keeps one connection to one pod (use dns:///<service>-grpc:<port>)');
      continue;
    }
    const [, host, portText] = m;
    const port = Number(portText);
    const [name, namespace] = host.split('.');
    const service = services.find(
      (s) => s.metadata.name === name && (namespace === undefined || (s.metadata.namespace ?? namespace) === namespace),
    );
    if (!service) {
      add(`names Service ${name}${namespace ? ` in namespace ${namespace}` : ''}, which is not in the manifests`);
      continue;
    }
    if (service.spec?.clusterIP !== 'None') {
      add(`names ${ref(service)}, which is not headless (clusterIP: None): its one virtual IP keeps each client on one pod`);
      continue;
    }
    if (service.spec?.publishNotReadyAddresses === true)
      add(`names ${ref(service)}, which publishes pods that are not ready (publishNotReadyAddresses)`);
    const selector = service.spec?.selector as Record<string, string> | undefined;
    const backing = selector ? workloads.filter((w) => matches({ matchLabels: selector }, podLabels(w))) : [];
    const servicePort = (service.spec?.ports ?? []).find((p: { port?: number }) => p.port === port) as
      { port: number; targetPort?: number | string } | undefined;
    if (!servicePort) add(`dials port ${port}, which ${ref(service)} does not declare`);
    else {
      for (const w of backing) {
        const listening = containerPort(w, servicePort.targetPort ?? servicePort.port);
        if (listening !== port) {
          add(
            `dials port ${port} of the pods of ${ref(service)}, where ${appName(w)} listens on ${listening ?? 'no such port'} (a headless name gives pod IPs: no port mapping)`,
          );
        }
      }
    }
    // Mesh TLS: the certificate the server presents must name what the client dials.
    for (const w of backing) {
      const secrets = new Set(
        (w.spec?.template?.spec?.volumes ?? []).map((v: { secret?: { secretName?: string } }) => v.secret?.secretName).filter(Boolean),
      );
      for (const cert of certificates.filter((c) => secrets.has(c.spec?.secretName))) {
        const usages: string[] | undefined = cert.spec?.usages;
        if (usages && !usages.includes('server auth')) continue;
        if (!(cert.spec?.dnsNames ?? []).includes(host)) {
          add(`dials ${host}, which ${ref(cert)} (mounted by ${appName(w)}) does not name in dnsNames: the clients' TLS handshake fails`);
        }
      }
    }
  }
  return findings;
}
