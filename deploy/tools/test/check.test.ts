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
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, periodSecond: 5 } }));
    expect(out).toContain('Deployment/web [schema] /spec/template/spec/containers/0/readinessProbe/periodSecond: unknown field "periodSecond"');
    expect(code).toBe(1);
  });

  it('fails on a value of the wrong type', () => {
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ ports: [{ name: 'http', containerPort: 'eighty' }] }));
    expect(out).toContain('Deployment/web [schema] /spec/template/spec/containers/0/ports/0/containerPort: must be integer');
    expect(code).toBe(1);
  });

  it('fails on a Deployment without probes', () => {
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ startupProbe: undefined, readinessProbe: undefined, livenessProbe: undefined }));
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(out).toContain(`Deployment/web [probes] container web has no ${probe}`);
    }
    expect(code).toBe(1);
  });

  it('fails on a probe of a port the container does not declare', () => {
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ readinessProbe: { grpc: { port: 50060 } }, livenessProbe: { httpGet: { path: '/healthz', port: 'health' } } }));
    expect(out).toContain('Deployment/web [probes] container web readinessProbe probes port 50060, which the container does not declare');
    expect(out).toContain('Deployment/web [probes] container web livenessProbe probes port health, which the container does not declare');
    expect(code).toBe(1);
  });

  it("fails on a container given every key of a Secret, or a key of convo-secrets its process does not use", () => {
    const secretKey = (key: string) => ({ name: key, valueFrom: { secretKeyRef: { name: 'convo-secrets', key } } });
    const { code, out } = check(['--no-images', '--file', '-'], deployment({ envFrom: [{ secretRef: { name: 'convo-secrets' } }], env: [secretKey('SUPER_ADMIN_TOKEN')] }));
    expect(out).toContain('Deployment/web [secrets] container web loads every key of Secret convo-secrets (envFrom): give it only the keys it uses');
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
    expect(out).toContain('Deployment/gateway [secrets] container gateway lacks SESSION_SECRET: gateway does not start without it in production');
    expect(out).toContain('Deployment/gateway [secrets] container gateway sets SUBGRAPH_TOKEN without a Secret (secretKeyRef)');
    expect(code).toBe(1);
    const optional = (key: string) => ({ name: key, valueFrom: { secretKeyRef: { name: 'convo-secrets', key, optional: true } } });
    const lax = check(['--no-images', '--file', '-'], gateway([...all.filter((k) => k !== 'SESSION_SECRET').map(secretKey), optional('SESSION_SECRET')]));
    expect(lax.out).toContain('Deployment/gateway [secrets] container gateway reads SESSION_SECRET as optional');
    expect(lax.code).toBe(1);
    // Mesh TLS stands in for the mesh secret.
    const tls = gateway([...all.filter((k) => k !== 'MESH_SECRET').map(secretKey), { name: 'GRPC_TLS_CA', value: '/etc/mesh-tls/ca.crt' }]);
    expect(check(['--no-images', '--file', '-'], tls).code).toBe(0);
  });

  it('fails on missing limits and a writable root filesystem', () => {
    const { code, out } = check(
      ['--no-images', '--file', '-'],
      deployment({ resources: { requests: { cpu: '100m', memory: '128Mi' } }, securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }),
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
      expect(code).toBe(1);
    });

    it('checks it as production when told to', () => {
      const { out } = check(['--profile', 'production', dir]);
      expect(out).toContain('Deployment/messaging-dispatcher [disruption-budget] no PodDisruptionBudget selects its pods');
    });
  });
});
