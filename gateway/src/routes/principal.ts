import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth';

/** The caller the route's auth hook resolved (external routes: the integration; tenant routes: the super-admin). */
export const principalOf = (req: FastifyRequest): Principal => req.principal!;

/** The OpenAPI security requirement of every authenticated route: a bearer token. */
export const security = [{ bearer: [] }];
