import { providerFailed } from '@convo/kit';
import { type GraphMethod, type GraphPage, MetaGraphClient, MetaGraphError } from '@convo/kit/meta-graph';

export type { GraphMethod, GraphPage };

/**
 * The Graph API (META_GRAPH_URL) as the page sees it, through the kit's Meta Graph client (bearer
 * token, total timeout, no redirect). A refusal or no answer becomes ERR_PROVIDER_FAILED with Meta's
 * own error message.
 */
export class GraphClient {
  private readonly graph: MetaGraphClient;

  constructor(baseUrl: string, timeoutMs: number) {
    this.graph = new MetaGraphClient({ baseUrl, timeoutMs });
  }

  async call(method: GraphMethod, path: string, token: string, body?: unknown): Promise<unknown> {
    try {
      return await this.graph.call(method, path, token, body);
    } catch (err) {
      throw asDomainError(err, method, path);
    }
  }

  /** The pages of an edge (the kit's paging by `after` cursor), each refusal mapped as call maps it. */
  async *pages(path: string, token: string, maxPages: number): AsyncGenerator<GraphPage | null> {
    try {
      yield* this.graph.pages(path, token, { maxPages });
    } catch (err) {
      throw asDomainError(err, 'GET', path);
    }
  }
}

function asDomainError(err: unknown, method: GraphMethod, path: string): unknown {
  if (!(err instanceof MetaGraphError)) return err;
  if (err.kind !== 'refused') return providerFailed(`Meta Graph API is unreachable: ${err.reason}`);
  return providerFailed(`Meta refused ${method} ${path.split('?')[0]} (HTTP ${err.status}): ${err.reason}`, [
    { provider: 'meta', status: err.status, code: err.envelope?.code ?? null, fbtraceId: err.envelope?.fbtrace_id ?? null },
  ]);
}
