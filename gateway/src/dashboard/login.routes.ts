import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Clients } from '../clients';
import type { SessionSigner } from './session';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});

/**
 * `POST /graphql/login`: a tenant administrator (the e-mail and password of tenantApiStoreTenant)
 * gets a short-lived session token for the GraphQL API, reaching that tenant only.
 */
export async function loginRoutes(app: FastifyInstance, opts: { clients: Clients; sessions: SessionSigner }) {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/graphql/login',
    { schema: { tags: ['GraphQL'], summary: 'Tenant administrator sign-in for the GraphQL API and the console', body: LoginBody } },
    async (req) => {
      const user = await opts.clients.tenants.AuthenticateAdmin(req.body);
      const { token, expiresAt } = opts.sessions.sign(user.tenantId, user.id);
      return { success: true, data: { token, expiresAt: expiresAt.toISOString(), tenantId: user.tenantId, userId: user.id } };
    },
  );
}
