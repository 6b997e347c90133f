// How many replicas of each deployment the dev mesh starts, and what each replica is called.

/** Deployments whose replicas the mesh can start, in start order. */
export const DEPLOYMENTS = [
  ...['tickets', 'messaging', 'channel-engines', 'social-config', 'tenants'],
  'gateway',
  'messaging-relay',
  'messaging-dispatcher',
  'tenants-reconciler',
];

const MAX_REPLICAS = 8;

/** How many replicas of `deployment` to start: the option, MESH_REPLICAS_<NAME>, MESH_REPLICAS, else 1. */
export function replicaCount(deployment: string, replicas: Record<string, number> = {}, env: NodeJS.ProcessEnv): number {
  const key = `MESH_REPLICAS_${deployment.toUpperCase().replace(/-/g, '_')}`;
  const raw = replicas[deployment] ?? env[key] ?? replicas['*'] ?? env.MESH_REPLICAS ?? 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_REPLICAS)
    throw new Error(`${key} / MESH_REPLICAS: ${String(raw)} is not a whole number of replicas from 1 to ${MAX_REPLICAS}`);
  return n;
}

/** The process name of a deployment's replica `i` (from 0): the deployment's own name for the first. */
export const replicaName = (deployment: string, i: number): string => (i === 0 ? deployment : `${deployment}-${i + 1}`);
