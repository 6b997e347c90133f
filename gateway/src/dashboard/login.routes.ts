import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import Type from 'typebox';
import type { Clients } from '../clients';
import type { RateLimits } from '../rate-limits';
import type { SessionSigner } from './session';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});

/** The e-mail as the limit counts it: one key whatever its case or spaces, and not in clear in Redis. */
const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url');

/**
 * `POST /graphql/login`: a tenant administrator (the e-mail and password of tenantApiStoreTenant)
 * gets a short-lived session token for the GraphQL API, reaching that tenant only. Attempts are
 * limited per client address and per e-mail (shared by every replica through Redis), counted
 * before the password is checked: past a limit, 429 ERR_RATE_LIMITED with Retry-After.
 */
export async function loginRoutes(app: FastifyInstance, opts: { clients: Clients; sessions: SessionSigner; rateLimits?: RateLimits }) {
  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .post(
      '/graphql/login',
      { schema: { tags: ['GraphQL'], summary: 'Tenant administrator sign-in for the GraphQL API and the console', body: LoginBody } },
      async (req, reply) => {
        const limits = opts.rateLimits;
        if (limits) {
          const { loginPerAddress, loginPerEmail } = limits.config;
          const keys: Parameters<RateLimits['charge']>[2] = [
            [loginPerAddress, `login-ip:${req.ip}`],
            [loginPerEmail, `login-email:${emailKey(req.body.email)}`],
          ];
          if (!(await limits.charge(req, reply, keys))) return reply;
        }
        const user = await opts.clients.tenants.AuthenticateAdmin(req.body);
        const { token, expiresAt } = opts.sessions.sign(user.tenantId, user.id, user.credentialsVersion);
        return { success: true, data: { token, expiresAt: expiresAt.toISOString(), tenantId: user.tenantId, userId: user.id } };
      },
    );
}
