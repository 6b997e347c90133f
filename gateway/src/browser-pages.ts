import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the build puts the console (gateway/console → dist/console) and the explorer (explorer/ + GraphiQL → dist/explorer). */
export const CONSOLE_DIR = join(__dirname, 'console');
export const EXPLORER_DIR = join(__dirname, 'explorer');

const STRICT =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** GraphiQL sets styles from script (CodeMirror, its panes): inline styles only, scripts still 'self'. */
const EXPLORER =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Static files of a browser page, with its CSP; no page when the build did not make it. */
async function page(app: FastifyInstance, dir: string, prefix: string, csp: string) {
  if (!existsSync(join(dir, 'index.html'))) return;
  app.get(prefix.slice(0, -1), { schema: { hide: true } }, (_req, reply) => reply.redirect(prefix));
  await app.register(fastifyStatic, {
    root: dir,
    prefix,
    schemaHide: true,
    decorateReply: false,
    setHeaders: (res) => {
      res.header('content-security-policy', csp).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache');
    },
  });
}

/**
 * The browser pages: the operator console at /console/ (gateway/console, which talks to /graphql
 * only) and the GraphQL explorer at /graphql/explorer/ (GraphiQL from the installed package, no
 * CDN; a browser's GET /graphql is sent there). Both are static and public: what they show comes
 * from /graphql with the caller's token. Hidden from the OpenAPI document (not the REST API).
 */
export async function browserPages(app: FastifyInstance, opts: { consoleDir?: string; explorerDir?: string } = {}) {
  await page(app, opts.consoleDir ?? CONSOLE_DIR, '/console/', STRICT);
  await page(app, opts.explorerDir ?? EXPLORER_DIR, '/graphql/explorer/', EXPLORER);
}

/** A browser opening /graphql (an HTML GET without a query) gets the explorer, not a JSON 401. */
export async function explorerRedirect(req: FastifyRequest, reply: FastifyReply) {
  const query = req.query as Record<string, unknown> | undefined;
  if (req.method === 'GET' && !query?.query && req.headers.accept?.includes('text/html')) return reply.redirect('/graphql/explorer/');
}
