import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

// deploy/check's engine, run as deploy/check runs it (the built CLI), on the real overlays and on
// manifests broken on purpose.

const repo = resolve(__dirname, '..', '..', '..');
const cli = join(repo, 'deploy', 'tools', 'dist', 'cli.js');
const kustomize = join(repo, 'deploy', 'kustomize');

function check(args: string[], input?: string) {
  const res = spawnSync(process.execPath, [cli, '--kustomize', kustomize, ...args], { input, encoding: 'utf8' });
  return { code: res.status, out: `${res.stdout}${res.stderr}` };
}

/** A Deployment that meets every policy of the default profile. */
const deployment = (container: Record<string, unknown> = {}) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: { app.kubernetes.io/name: web }
  template:
    metadata:
      labels: { app.kubernetes.io/name: web }
    spec:
      securityContext: { runAsNonRoot: true, runAsUser: 10001 }
      containers:
        - ${JSON.stringify({
          name: 'web',
          image: 'web:1',
          ports: [{ name: 'http', containerPort: 8080 }],
          startupProbe: { httpGet: { path: '/healthz', port: 'http' } },
          readinessProbe: { httpGet: { path: '/readyz', port: 'http' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 'http' } },
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '256Mi' } },
          securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          ...container,
        })}
`;

describe('deploy/check', () => {
  it('passes every overlay of the repository', () => {
    const { code, out } = check([]);
    expect(out).toMatch(/✓ overlay dev \(default profile/);
    expect(out).toMatch(/✓ overlay production \(production profile/);
    expect(code).toBe(0);
  });

  it('passes a Deployment that meets every policy', () => {
    const { code, out } = check(['--no-images', '--file', '-'], deployment());
    expect(out).toContain('✓');
    expect(code).toBe(0);
  });

  it('fails on a misspelled field', () => {
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({ readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSecond: 5 } }),
    );
    expect(out).toContain(
      'Deployment/web [schema] /spec/template/spec/containers/0/readinessProbe/periodSecond: unknown field "periodSecond"',
    );
    expect(code).toBe(1);
  });

  it('fails on a value of the wrong type', () => {
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ ports: [{ name: 'http', containerPort: 'eighty' }] }));
    expect(out).toContain('Deployment/web [schema] /spec/template/spec/containers/0/ports/0/containerPort: must be integer');
    expect(code).toBe(1);
  });

  it('fails on a Deployment without probes', () => {
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({ startupProbe: undefined, readinessProbe: undefined, livenessProbe: undefined }),
    );
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(out).toContain(`Deployment/web [probes] container web has no ${probe}`);
    }
    expect(code).toBe(1);
  });

  it('fails on a probe of a port the container does not declare', () => {
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({ readinessProbe: { grpc: { port: 50060 } }, livenessProbe: { httpGet: { path: '/healthz', port: 'health' } } }),
    );
    expect(out).toContain('Deployment/web [probes] container web readinessProbe probes port 50060, which the container does not declare');
    expect(out).toContain('Deployment/web [probes] container web livenessProbe probes port health, which the container does not declare');
    expect(code).toBe(1);
  });

  it('fails on a container given every key of a Secret, or a key of convo-secrets its process does not use', () => {
    const secretKey = (key: string) => ({ name: key, valueFrom: { secretKeyRef: { name: 'convo-secrets', key } } });
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({ envFrom: [{ secretRef: { name: 'convo-secrets' } }], env: [secretKey('SUPER_ADMIN_TOKEN')] }),
    );
    expect(out).toContain(
      'Deployment/web [secrets] container web loads every key of Secret convo-secrets (envFrom): give it only the keys it uses',
    );
    expect(out).toContain('Deployment/web [secrets] container web reads SUPER_ADMIN_TOKEN of Secret convo-secrets, which web does not use');
    expect(code).toBe(1);
  });

  it('fails on a Deployment that lacks one of its independent secrets, or sets one as a literal', () => {
    const secretKey = (key: string) => ({ name: key, valueFrom: { secretKeyRef: { name: 'convo-secrets', key } } });
    const gateway = (env: unknown[]) => deployment({ env }).replace(/\bweb\b/g, 'gateway');
    const all = ['SUPER_ADMIN_TOKEN', 'SESSION_SECRET', 'SUBGRAPH_TOKEN', 'MESH_SECRET'];
    expect(check(['--no-images', '--file', '-'], gateway(all.map(secretKey))).code).toBe(0);
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      gateway([secretKey('SUPER_ADMIN_TOKEN'), { name: 'SUBGRAPH_TOKEN', value: 'y'.repeat(32) }, secretKey('MESH_SECRET')]),
    );
    expect(out).toContain(
      'Deployment/gateway [secrets] container gateway lacks SESSION_SECRET: gateway does not start without it in production',
    );
    expect(out).toContain('Deployment/gateway [secrets] container gateway sets SUBGRAPH_TOKEN without a Secret (secretKeyRef)');
    expect(code).toBe(1);
    const optional = (key: string) => ({ name: key, valueFrom: { secretKeyRef: { name: 'convo-secrets', key, optional: true } } });
    const lax = check(
      ['--no-images', '--file', '-'],
      gateway([...all.filter((k) => k !== 'SESSION_SECRET').map(secretKey), optional('SESSION_SECRET')]),
    );
    expect(lax.out).toContain('Deployment/gateway [secrets] container gateway reads SESSION_SECRET as optional');
    expect(lax.code).toBe(1);
    // Mesh TLS stands in for the mesh secret.
    const tls = gateway([...all.filter((k) => k !== 'MESH_SECRET').map(secretKey), { name: 'GRPC_TLS_CA', value: '/etc/mesh-tls/ca.crt' }]);
    expect(check(['--no-images', '--file', '-'], tls).code).toBe(0);
  });

  it('fails on missing limits and a writable root filesystem', () => {
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({
        resources: { requests: { cpu: '100m', memory: '128Mi' } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      }),
    );
    expect(out).toContain('container web has no limits.cpu');
    expect(out).toContain('container web has no limits.memory');
    expect(out).toContain('container web has a writable root filesystem');
    expect(code).toBe(1);
  });

  it('asks production for a disruption budget, two replicas and network isolation', () => {
    const { code, out } = check(['--no-images', '--profile', 'production', '--file', '-'], deployment());
    expect(out).toContain('Deployment/web [disruption-budget] no PodDisruptionBudget selects its pods');
    expect(out).toContain('Deployment/web [availability] runs fewer than 2 replicas and is not autoscaled');
    expect(out).toContain('no default-deny NetworkPolicy for both Ingress and Egress');
    expect(code).toBe(1);
  });

  describe('gRPC addresses', () => {
    // A service (orders) behind a ClusterIP Service and a headless one, its address in a ConfigMap.
    const orders = deployment({
      ports: [
        { name: 'http', containerPort: 8080 },
        { name: 'grpc', containerPort: 50051 },
      ],
    }).replace(/\bweb\b/g, 'orders');
    const service = (name: string, spec: Record<string, unknown>) => `---
apiVersion: v1
kind: Service
metadata: { name: ${name} }
spec: ${JSON.stringify({ selector: { 'app.kubernetes.io/name': 'orders' }, ...spec })}
`;
    const services =
      service('orders', { ports: [{ name: 'grpc', port: 50051, targetPort: 'grpc' }] }) +
      service('orders-grpc', {
        clusterIP: 'None',
        publishNotReadyAddresses: false,
        ports: [{ name: 'grpc', port: 50051, targetPort: 'grpc' }],
      });
    const config = (addr: string) => `---
apiVersion: v1
kind: ConfigMap
metadata: { name: convo-config }
data: { ORDERS_GRPC_ADDR: "${addr}" }
`;
    const run = (text: string) => check(['--no-images', '--file', '-'], text);

    it('passes an address naming a headless Service', () => {
      const { code, out } = run(orders + services + config('dns:///orders-grpc:50051'));
      expect(out).toContain('✓');
      expect(code).toBe(0);
    });

    it('fails on an address pointed back at the ClusterIP Service, or not a dns: target', () => {
      const clusterIp = run(orders + services + config('dns:///orders:50051'));
      expect(clusterIp.out).toContain(
        'ConfigMap/convo-config [grpc-address] ORDERS_GRPC_ADDR=dns:///orders:50051 names Service/orders, which is not headless (clusterIP: None)',
      );
      expect(clusterIp.code).toBe(1);
      const plain = run(orders + services + config('orders-grpc:50051'));
      expect(plain.out).toContain(
        'ConfigMap/convo-config [grpc-address] ORDERS_GRPC_ADDR=orders-grpc:50051 is not a dns:/// address of a headless Service',
      );
      expect(plain.code).toBe(1);
      const missing = run(orders + services + config('dns:///orders-headless:50051'));
      expect(missing.out).toContain('names Service orders-headless, which is not in the manifests');
      expect(missing.code).toBe(1);
    });

    it("fails on a container's own address, a port the pods do not listen on, or not-ready pods published", () => {
      const env = deployment({
        ports: [
          { name: 'http', containerPort: 8080 },
          { name: 'grpc', containerPort: 50051 },
        ],
        env: [{ name: 'ORDERS_GRPC_ADDR', value: 'orders:50051' }],
      }).replace(/\bweb\b/g, 'orders');
      const own = run(env + services);
      expect(own.out).toContain(
        'Deployment/orders [grpc-address] container orders: ORDERS_GRPC_ADDR=orders:50051 is not a dns:/// address',
      );
      expect(own.code).toBe(1);
      // A headless name resolves to pod IPs: the client dials the Service's port on the pod itself.
      const mapped = service('orders-grpc', {
        clusterIP: 'None',
        publishNotReadyAddresses: true,
        ports: [{ name: 'grpc', port: 443, targetPort: 'grpc' }],
      });
      const { code, out } = run(orders + mapped + config('dns:///orders-grpc:443'));
      expect(out).toContain('dials port 443 of the pods of Service/orders-grpc, where orders listens on 50051');
      expect(out).toContain('names Service/orders-grpc, which publishes pods that are not ready');
      expect(code).toBe(1);
    });
  });

  describe('an overlay broken on purpose, rendered by kustomize', () => {
    let dir: string;
    beforeAll(() => {
      // Inside the repository (ignored .cache/): kustomize takes only relative paths to a base.
      mkdirSync(join(repo, '.cache'), { recursive: true });
      dir = mkdtempSync(join(repo, '.cache', 'convo-overlay-'));
      writeFileSync(
        join(dir, 'kustomization.yaml'),
        `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ${relative(dir, join(repo, 'deploy', 'overlays', 'production'))}
patches:
  # A Deployment without probes.
  - target: { kind: Deployment, name: tickets }
    patch: |-
      - op: remove
        path: /spec/template/spec/containers/0/startupProbe
      - op: remove
        path: /spec/template/spec/containers/0/readinessProbe
      - op: remove
        path: /spec/template/spec/containers/0/livenessProbe
  # A misspelled field.
  - target: { kind: Deployment, name: gateway }
    patch: |-
      - op: add
        path: /spec/template/spec/containers/0/resources/limit
        value: { cpu: "2" }
  # The budget of the dispatcher gone, and the relay's egress to tenants cut.
  - patch: |-
      $patch: delete
      apiVersion: policy/v1
      kind: PodDisruptionBudget
      metadata: { name: messaging-dispatcher }
  - target: { kind: NetworkPolicy, name: convo-allow-grpc-egress }
    patch: |-
      - op: replace
        path: /spec/podSelector/matchExpressions/0/values
        value: ["gateway", "messaging", "social-config", "messaging-dispatcher"]
  # The tenants certificate without the headless Service's name, which clients dial.
  - target: { kind: Certificate, name: convo-mesh-tenants }
    patch: |-
      - op: replace
        path: /spec/dnsNames
        value: ["tenants", "tenants.convo.svc", "tenants.convo.svc.cluster.local"]
# Two gRPC addresses pointed back at the ClusterIP Services.
configMapGenerator:
  - name: convo-config
    behavior: merge
    literals:
      - TICKETS_GRPC_ADDR=tickets:50051
      - MESSAGING_GRPC_ADDR=dns:///messaging:50052
`,
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('fails, naming each problem', () => {
      const { code, out } = check([dir]);
      expect(out).toMatch(/✗ overlay convo-overlay-\w+ \(default profile, \d+ objects\)/);
      expect(out).toContain('Deployment/tickets [probes] container tickets has no startupProbe');
      expect(out).toContain('Deployment/tickets [probes] container tickets has no livenessProbe');
      expect(out).toContain('Deployment/gateway [schema] /spec/template/spec/containers/0/resources/limit: unknown field "limit"');
      expect(out).toContain('messaging-relay → tenants:grpc (50055) is blocked by its egress');
      expect(out).toMatch(
        /ConfigMap\/convo-config-\w+ \[grpc-address\] TICKETS_GRPC_ADDR=tickets:50051 is not a dns:\/\/\/ address of a headless Service/,
      );
      expect(out).toContain('MESSAGING_GRPC_ADDR=dns:///messaging:50052 names Service/messaging, which is not headless');
      expect(out).toContain(
        'TENANTS_GRPC_ADDR=dns:///tenants-grpc:50055 dials tenants-grpc, which Certificate/convo-mesh-tenants (mounted by tenants) does not name',
      );
      expect(code).toBe(1);
    });

    it('checks it as production when told to', () => {
      const { out } = check(['--profile', 'production', dir]);
      expect(out).toContain('Deployment/messaging-dispatcher [disruption-budget] no PodDisruptionBudget selects its pods');
    });
  });
});
