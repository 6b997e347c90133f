import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/**
 * The methods a path is served with, for a 405 with `Allow` (RFC 9110 15.5.6) instead of a 404
 * when a known path is called with a wrong method. Every route is recorded in a second router as
 * it is added (so the hook must be installed before the routes), and looked up by the concrete
 * path when Fastify found no route.
 */
export function routeMethods(app: FastifyInstance): (path: string) => string[] {
  const router = FindMyWay();
  const methods = new Set<HTTPMethod>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat().map((m) => m.toUpperCase() as HTTPMethod)) {
      if (router.hasRoute(method, route.url)) continue;
      router.on(method, route.url, () => undefined);
      methods.add(method);
    }
  });
  return (path) => [...methods].filter((method) => router.find(method, path) !== null).sort();
}
