import { parseAllDocuments } from 'yaml';

/** A Kubernetes object as kustomize renders it (plain data). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: any;
  [key: string]: unknown;
}

export interface Finding {
  /** `Kind/name`, or `(manifest)` for problems of the input itself. */
  object: string;
  rule: string;
  message: string;
}

export const ref = (o: Pick<K8sObject, 'kind' | 'metadata'>): string => `${o.kind}/${o.metadata?.name ?? '(unnamed)'}`;

/** Every document of a multi-document YAML stream; a syntax error is a finding, not a crash. */
export function parseManifests(text: string): { objects: K8sObject[]; findings: Finding[] } {
  const objects: K8sObject[] = [];
  const findings: Finding[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length) {
      findings.push({ object: '(manifest)', rule: 'yaml', message: `document ${i + 1}: ${doc.errors[0].message}` });
      return;
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      findings.push({ object: '(manifest)', rule: 'yaml', message: `document ${i + 1} is not an object` });
      return;
    }
    objects.push(value as K8sObject);
  });
  return { objects, findings };
}

/** Workloads: what carries a pod template. */
export const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

export const podLabels = (w: K8sObject): Record<string, string> => w.spec?.template?.metadata?.labels ?? {};
export const appName = (w: K8sObject): string => podLabels(w)['app.kubernetes.io/name'] ?? w.metadata.name;
