import { answerChecker } from './answer-check';

export interface Reply {
  status: number;
  body: any;
}

/** A JSON POST/GET with an optional bearer token; answers status and parsed body. */
export async function call(url: string, opts: { token?: string; body?: unknown; method?: string } = {}): Promise<Reply> {
  const method = opts.method ?? (opts.body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, {
    method,
    headers: {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  const body = text ? JSON.parse(text) : null;
  const target = new URL(url);
  // Only the gateway answers with X-Request-Id: fake providers are never asked for a document.
  const checker = res.headers.has('x-request-id') ? await answerChecker(target.origin) : undefined;
  const problem = checker?.(method, target.pathname, res.status, body);
  if (problem) throw new Error(problem);
  return { status: res.status, body };
}

/**
 * Sends are accepted, then delivered by the dispatcher: waits until `ready()` holds (a provider saw
 * the request, a message reached a status), polling; fails after `ms`.
 */
export async function eventually<T>(
  what: string,
  ready: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 15_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await ready();
    if (value) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * No pacing on any channel kind: the tests send bursts on one channel and check what arrives, not
 * how fast (pacing has its own test in messaging's dispatcher tests).
 */
export const UNPACED: Record<string, string> = Object.fromEntries(
  [
    'ENGINE_A',
    'ENGINE_B',
    'ENGINE_C',
    'ENGINE_D',
    'ENGINE_E',
    'ENGINE_F',
    'ENGINE_G',
    'ENGINE_H',
    'WHATSAPP',
    'WABA',
    'SOCIAL_A',
    'SOCIAL_B',
    'WEBMAIL',
    'MARKETPLACE',
  ].map((kind) => [`DISPATCH_INTERVAL_MS_${kind}`, '0']),
);

/** Waits until the dispatcher has settled a message (any status but queued) and answers its record. */
export function settled(root: string, token: string, messageId: string) {
  return eventually(`message ${messageId} settled`, async () => {
    const got = await call(`${root}/getMessageByMessageId?messageId=${messageId}`, { token });
    return got.status === 200 && got.body.data.status !== 'queued' && got.body.data;
  });
}
