/**
 * How the federated gateway reaches one subgraph. Its setting is one URL (on Kubernetes, the
 * service's ClusterIP Service, which spreads connections itself) or a comma-separated list of its
 * replicas' URLs (replicas on one machine, as the dev mesh runs them): each request goes to the
 * next URL in turn, and one whose connection was refused (nothing was sent, so nothing can be
 * done twice) goes on to the next, so a replica that is down costs no failed query.
 */
export interface SubgraphTarget {
  /** The first URL: what Apollo names the subgraph by. */
  url: string;
  fetcher: (url: string, init: RequestInit) => Promise<Response>;
}

const refused = (err: unknown): boolean => (err as { cause?: { code?: string } } | undefined)?.cause?.code === 'ECONNREFUSED';

export function subgraphTarget(setting: string, timeoutMs: number): SubgraphTarget {
  const urls = setting
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (!urls.length) throw new Error('A subgraph needs at least one URL');
  let turn = 0;
  const fetcher = async (_url: string, init: RequestInit): Promise<Response> => {
    const first = turn;
    turn = (turn + 1) % urls.length;
    for (let i = 0; ; i++) {
      try {
        return await fetch(urls[(first + i) % urls.length], { ...init, signal: AbortSignal.timeout(timeoutMs) });
      } catch (err) {
        if (i + 1 >= urls.length || !refused(err)) throw err;
      }
    }
  };
  return { url: urls[0], fetcher };
}
