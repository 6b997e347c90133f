import { validation, type FieldIssue } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clients } from '../clients';
import { ApiParams } from '../schemas/common';
import { GreetingBody, IceBreakersBody, PersistentMenuBody, PersonasBody } from '../schemas/social.schemas';
import { principalOf, security } from './principal';

const tags = ['social configuration'];

const required = (field: string, action: string): FieldIssue => ({ field, message: `is required when action is ${action}` });

function refuse(issues: FieldIssue[]): void {
  if (issues.length) throw validation('Invalid request', issues);
}

/**
 * The four channel-level configuration endpoints of the social channels. The channel is the
 * integration's own (its sessionId): an integration configures the channel it was created for.
 * The social-config service checks the channel's kind, applies the change at Meta and stores it.
 */
export async function socialConfigRoutes(app: FastifyInstance, { clients }: { clients: Clients }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const configure = async (req: FastifyRequest, feature: string, action: string, body: Record<string, unknown> = {}) => {
    const { tenantId, sessionId } = principalOf(req);
    const res = await clients.socialConfig.Configure({ tenantId, channelId: sessionId, feature, action, json: JSON.stringify(body) });
    return { success: true, data: JSON.parse(res.json) as Record<string, unknown> };
  };

  r.post('/social_a/iceBreakers', { schema: { params: ApiParams, body: IceBreakersBody, tags, security } }, async (req) => {
    const { action, iceBreakers } = req.body;
    if (action !== 'set') return configure(req, 'iceBreakers', action);
    refuse(iceBreakers ? [] : [required('iceBreakers', 'set')]);
    return configure(req, 'iceBreakers', action, { iceBreakers });
  });

  r.post('/social_a/persistentMenu', { schema: { params: ApiParams, body: PersistentMenuBody, tags, security } }, async (req) => {
    const { action, composerInputDisabled, menuItems } = req.body;
    if (action !== 'set') return configure(req, 'persistentMenu', action);
    const issues: FieldIssue[] = menuItems ? [] : [required('menuItems', 'set')];
    menuItems?.forEach((item, i) => {
      if (item.type === 'postback' && item.payload === undefined) issues.push({ field: `menuItems[${i}].payload`, message: 'is required for postback' });
      if (item.type === 'web_url' && item.url === undefined) issues.push({ field: `menuItems[${i}].url`, message: 'is required for web_url' });
    });
    refuse(issues);
    return configure(req, 'persistentMenu', action, { composerInputDisabled, menuItems });
  });

  r.post('/social_b/greeting', { schema: { params: ApiParams, body: GreetingBody, tags, security } }, async (req) => {
    const { action, greetings } = req.body;
    if (action !== 'set') return configure(req, 'greeting', action);
    const issues: FieldIssue[] = [];
    if (!greetings) issues.push(required('greetings', 'set'));
    else if (!greetings.some((g) => g.locale === 'default')) issues.push({ field: 'greetings', message: 'needs an entry with locale "default"' });
    const seen = new Set<string>();
    greetings?.forEach((g, i) => {
      if (seen.has(g.locale)) issues.push({ field: `greetings[${i}].locale`, message: `${g.locale} appears more than once` });
      seen.add(g.locale);
    });
    refuse(issues);
    return configure(req, 'greeting', action, { greetings });
  });

  r.post('/social_b/personas', { schema: { params: ApiParams, body: PersonasBody, tags, security } }, async (req) => {
    const { action, name, profilePictureUrl, personaId } = req.body;
    if (action === 'list') return configure(req, 'personas', action);
    if (action === 'create') {
      refuse([...(name ? [] : [required('name', action)]), ...(profilePictureUrl ? [] : [required('profilePictureUrl', action)])]);
      return configure(req, 'personas', action, { name, profilePictureUrl });
    }
    refuse(personaId ? [] : [required('personaId', action)]);
    return configure(req, 'personas', action, { personaId });
  });
}
