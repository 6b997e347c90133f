export interface Reply {
  status: number;
  body: any;
}

/** A JSON POST/GET with an optional bearer token; answers status and parsed body. */
export async function call(url: string, opts: { token?: string; body?: unknown; method?: string } = {}): Promise<Reply> {
  const res = await fetch(url, {
    method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
