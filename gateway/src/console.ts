import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where the build puts the console (gateway/console → dist/console). */
export const CONSOLE_DIR = join(__dirname, 'console');

/**
 * The operator console at /console/: static files the build made from gateway/console, which talk
 * to /graphql only. Strict CSP: its own scripts, styles and API, nothing else, no framing. Hidden
 * from the OpenAPI document (not the REST API).
 */
export async function consoleRoutes(app: FastifyInstance, opts: { dir?: string } = {}) {
  const dir = opts.dir ?? CONSOLE_DIR;
  if (!existsSync(join(dir, 'index.html'))) return;
  const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  app.get('/console', { schema: { hide: true } }, (_req, reply) => reply.redirect('/console/'));
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    schemaHide: true,
    setHeaders: (res) => {
      res.header('content-security-policy', csp).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache');
    },
  });
}
