import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { GreetingBody, IceBreakersBody, PersistentMenuBody, PersonasBody, SocialConfigResult } from '../schemas/social.schemas';
import { principalOf, security } from './principal';
import { pathsOf } from './segments';

const tags = ['social configuration'];
const response = { 200: SocialConfigResult };

/**
 * The four channel-level configuration endpoints (what depends on `action` is each schema's rule) of the social channels. The channel is the
 * integration's own (its sessionId): an integration configures the channel it was created for.
 * The social-config service checks the channel's kind, applies the change at Meta and stores it.
 */
export async function socialConfigRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  // Each route answers under the seed's segment and the channel's real name (segments.ts).
  const r = {
    post: ((path: string, opts: never, handler: never) => {
      for (const p of pathsOf(path)) typed.post(p, opts, handler);
    }) as unknown as typeof typed.post,
  };

  const configure = async (req: FastifyRequest, feature: string, action: string, body: Record<string, unknown> = {}) => {
    const { tenantId, sessionId } = principalOf(req);
    const res = await clients.socialConfig.Configure({ tenantId, channelId: sessionId, feature, action, json: JSON.stringify(body) });
    return { success: true as const, data: JSON.parse(res.json) as Record<string, unknown> };
  };

  r.post(
    '/social_a/iceBreakers',
    {
      schema: {
        summary: "Get, set or delete the Instagram channel's ice breakers",
        params: ApiParams,
        body: IceBreakersBody,
        response,
        tags,
        security,
      },
    },
    async (req) => {
      const { action, iceBreakers } = req.body;
      if (action !== 'set') return configure(req, 'iceBreakers', action);
      return configure(req, 'iceBreakers', action, { iceBreakers });
    },
  );

  r.post(
    '/social_a/persistentMenu',
    {
      schema: {
        summary: "Get, set or delete the Instagram channel's persistent menu",
        params: ApiParams,
        body: PersistentMenuBody,
        response,
        tags,
        security,
      },
    },
    async (req) => {
      const { action, composerInputDisabled, menuItems } = req.body;
      if (action !== 'set') return configure(req, 'persistentMenu', action);
      return configure(req, 'persistentMenu', action, { composerInputDisabled, menuItems });
    },
  );

  r.post(
    '/social_b/greeting',
    {
      schema: {
        summary: "Get, set or delete the Messenger page's greeting",
        params: ApiParams,
        body: GreetingBody,
        response,
        tags,
        security,
      },
    },
    async (req) => {
      const { action, greetings } = req.body;
      if (action !== 'set') return configure(req, 'greeting', action);
      return configure(req, 'greeting', action, { greetings });
    },
  );

  r.post(
    '/social_b/personas',
    {
      schema: {
        summary: "List, create or delete the Messenger page's personas",
        params: ApiParams,
        body: PersonasBody,
        response,
        tags,
        security,
      },
    },
    async (req) => {
      const { action, name, profilePictureUrl, personaId } = req.body;
      if (action === 'list') return configure(req, 'personas', action);
      if (action === 'create') {
        return configure(req, 'personas', action, { name, profilePictureUrl });
      }
      return configure(req, 'personas', action, { personaId });
    },
  );
}
