import { Issues, providerFailed, validation, type proto, type ServiceClient } from '@convo/kit';
import { PERSONA_ID, type MenuItemDoc, type ProfileDoc, type ProfileFields, type ProfilesRepository } from '../db/profiles.repository';
import type { GraphClient } from '../meta/graph.client';
import { emptyProfile } from './profiles.service';

type Channel = proto.tenants.Channel__Output;
type Body = Record<string, unknown>;
type Data = Record<string, unknown>;

/**
 * One Messenger Profile property (ice breakers, persistent menu, greeting): what the request
 * carries, what Meta is sent, and what is stored. `get` answers the stored copy, so it costs no
 * Meta call (the Profile API allows 10 calls per 10 minutes per page).
 */
interface ProfileFeature {
  kind: 'social_a' | 'social_b';
  /** The property's name in Meta's messenger_profile. */
  metaField: 'ice_breakers' | 'persistent_menu' | 'greeting';
  /** The applied configuration, from a `set` body the gateway has validated. */
  parse(body: Body): Data;
  toMeta(data: Data): unknown;
  /** The stored fields for a configuration; null clears them. */
  store(data: Data | null): ProfileFields;
  current(doc: ProfileDoc): Data;
}

const PROFILE_FEATURES: Record<'iceBreakers' | 'persistentMenu' | 'greeting', ProfileFeature> = {
  iceBreakers: {
    kind: 'social_a',
    metaField: 'ice_breakers',
    parse: (b) => ({ iceBreakers: listOf(b, 'iceBreakers').map((x) => ({ question: String(x.question), payload: String(x.payload) })) }),
    // The localized form; `default` is the locale every user without a better match sees.
    toMeta: (d) => [{ locale: 'default', call_to_actions: d.iceBreakers }],
    store: (d) => ({ iceBreakers: (d?.iceBreakers as ProfileDoc['iceBreakers']) ?? [] }),
    current: (doc) => ({ iceBreakers: doc.iceBreakers }),
  },
  persistentMenu: {
    kind: 'social_a',
    metaField: 'persistent_menu',
    parse: (b) => {
      // Instagram's menu has no composer_input_disabled: free text cannot be turned off there.
      if (b.composerInputDisabled === true) {
        throw validation('Instagram cannot disable free text', [
          { field: 'composerInputDisabled', message: 'social_a (Instagram) has no composer_input_disabled; send false or leave it out' },
        ]);
      }
      return { composerInputDisabled: false, menuItems: listOf(b, 'menuItems').map(menuItem) };
    },
    toMeta: (d) => [{ locale: 'default', call_to_actions: d.menuItems }],
    store: (d) => ({
      persistentMenu: d ? { composerInputDisabled: d.composerInputDisabled as boolean, menuItems: d.menuItems as MenuItemDoc[] } : null,
    }),
    current: (doc) => ({ composerInputDisabled: false, menuItems: [], ...doc.persistentMenu }),
  },
  greeting: {
    kind: 'social_b',
    metaField: 'greeting',
    parse: (b) => ({ greetings: listOf(b, 'greetings').map((x) => ({ locale: String(x.locale), text: String(x.text) })) }),
    toMeta: (d) => d.greetings,
    store: (d) => ({ greetings: (d?.greetings as ProfileDoc['greetings']) ?? [] }),
    current: (doc) => ({ greetings: doc.greetings }),
  },
};

const ACTIONS: Record<string, readonly string[]> = {
  iceBreakers: ['get', 'set', 'delete'],
  persistentMenu: ['get', 'set', 'delete'],
  greeting: ['get', 'set', 'delete'],
  personas: ['list', 'create', 'delete'],
};

/** Personas are Messenger's; Meta pages its list, followed up to this many pages. */
const PERSONAS_KIND = 'social_b';
const MAX_PERSONA_PAGES = 10;
const PROFILE_PATH = '/me/messenger_profile';

/**
 * The four configuration endpoints. Every change is applied at Meta first and stored only once
 * Meta accepted it, so a refusal leaves the stored configuration as it was.
 */
export class ConfigureService {
  constructor(
    private readonly repo: ProfilesRepository,
    private readonly graph: GraphClient,
    private readonly tenants: ServiceClient<'tenants'>,
  ) {}

  async configure(req: proto.socialConfig.ConfigureRequest__Output): Promise<Data> {
    const { tenantId, channelId, feature, action } = req;
    // tenantId 0 would ask tenants for the channel in any tenant.
    const actions = Object.hasOwn(ACTIONS, feature) ? ACTIONS[feature] : undefined;
    new Issues()
      .check(tenantId > 0, 'tenantId', 'is required')
      .check(channelId > 0, 'channelId', 'is required')
      .check(!!actions, 'feature', `must be one of ${Object.keys(ACTIONS).join(', ')}`)
      .check(!actions || actions.includes(action), 'action', `must be one of ${actions?.join(', ')}`)
      .throwIfAny('Invalid configuration request');
    const body = parseBody(req.json);
    const kind = feature === 'personas' ? PERSONAS_KIND : PROFILE_FEATURES[feature as keyof typeof PROFILE_FEATURES].kind;
    const channel = await this.tenants.GetChannel({ tenantId, channelId });
    if (channel.type !== kind) {
      throw validation(
        `${feature} needs a ${kind} channel; channel ${channelId} is ${channel.type}`,
        [{ field: 'channelId', message: `must be a ${kind} channel` }],
        'ERR_CHANNEL_MISMATCH',
      );
    }
    if (feature === 'personas') return this.personas(action, channel, body);
    return this.profile(PROFILE_FEATURES[feature as keyof typeof PROFILE_FEATURES], action, channel, body);
  }

  private async profile(f: ProfileFeature, action: string, channel: Channel, body: Body): Promise<Data> {
    const { tenantId, id } = channel;
    // Instagram shares the Messenger Profile API, told apart by `platform`.
    const platform = channel.type === 'social_a' ? { platform: 'instagram' } : {};
    if (action === 'get') return f.current((await this.repo.find(tenantId, id)) ?? emptyProfile(tenantId, id));
    if (action === 'set') {
      const data = f.parse(body);
      await this.graph.call('POST', PROFILE_PATH, channel.pageToken, { ...platform, [f.metaField]: f.toMeta(data) });
      await this.repo.setFields(tenantId, id, f.store(data));
      return data;
    }
    await this.graph.call('DELETE', PROFILE_PATH, channel.pageToken, { ...platform, fields: [f.metaField] });
    await this.repo.setFields(tenantId, id, f.store(null));
    return { deleted: true };
  }

  private async personas(action: string, channel: Channel, body: Body): Promise<Data> {
    const page = `/${encodeURIComponent(channel.pageId)}/personas`;
    if (action === 'list') return { personas: await this.listPersonas(page, channel.pageToken) };
    if (action === 'create') {
      const name = String(body.name);
      const profilePictureUrl = String(body.profilePictureUrl);
      const created = (await this.graph.call('POST', page, channel.pageToken, { name, profile_picture_url: profilePictureUrl })) as {
        id?: unknown;
      } | null;
      if (typeof created?.id !== 'string' || !PERSONA_ID.test(created.id))
        throw providerFailed('Meta answered the persona creation without a persona id');
      const persona = { personaId: created.id, name, profilePictureUrl };
      await this.repo.addPersona(channel.tenantId, channel.id, { ...persona, createdAt: new Date() });
      return persona;
    }
    const personaId = String(body.personaId);
    if (!PERSONA_ID.test(personaId))
      throw validation('Invalid personaId', [{ field: 'personaId', message: 'must be the digits of a Meta persona id' }]);
    await this.graph.call('DELETE', `/${encodeURIComponent(personaId)}`, channel.pageToken);
    await this.repo.removePersona(channel.tenantId, channel.id, personaId);
    return { personaId, deleted: true };
  }

  /** Meta's list is the truth: it also holds personas made outside this API. */
  private async listPersonas(path: string, token: string) {
    const personas: Array<{ personaId: string; name: string; profilePictureUrl: string }> = [];
    // Meta sends `next` only when another page exists; its cursor is used on our own base URL.
    for await (const res of this.graph.pages(path, token, MAX_PERSONA_PAGES)) {
      for (const p of (Array.isArray(res?.data) ? res.data : []) as GraphPersona[]) {
        personas.push({ personaId: String(p.id), name: String(p.name ?? ''), profilePictureUrl: String(p.profile_picture_url ?? '') });
      }
    }
    return personas;
  }
}

interface GraphPersona {
  id?: unknown;
  name?: unknown;
  profile_picture_url?: unknown;
}

function parseBody(json: string): Body {
  let body: unknown;
  try {
    body = json ? JSON.parse(json) : {};
  } catch {
    throw validation('The configuration is not JSON', [{ field: 'json', message: 'must be a JSON object' }]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validation('The configuration is not a JSON object', [{ field: 'json', message: 'must be a JSON object' }]);
  }
  return body as Body;
}

function listOf(body: Body, field: string): Body[] {
  const list = body[field];
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'object' || x === null)) {
    throw validation(`${field} is required`, [{ field, message: 'must be a list of objects' }]);
  }
  return list as Body[];
}

/** Meta's call_to_actions item: a postback carries a payload, a web_url a url, nothing else. */
function menuItem(x: Body): MenuItemDoc {
  const title = String(x.title);
  return x.type === 'web_url' ? { type: 'web_url', title, url: String(x.url) } : { type: 'postback', title, payload: String(x.payload) };
}
