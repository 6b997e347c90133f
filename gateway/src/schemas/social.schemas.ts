import type { FieldIssue } from '@convo/kit';
import Type, { type Static } from 'typebox';
import { rule } from '../validation/rules';
import { NonEmpty, StringEnum } from './common';
import { Envelope } from './envelopes';

// The channel-level configuration of the social channels. What depends on `action` ("R when
// set", "payload R for postback") is each schema's rule (x-rules).

const required = (field: string, action: unknown): FieldIssue => ({ field, message: `is required when action is ${action}` });
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

const ProfileAction = StringEnum(['get', 'set', 'delete'], {
  description: 'get answers the current configuration; set replaces it; delete removes it',
});
/** Meta's limit on a postback payload. */
const Payload = (description: string) => NonEmpty(description, 1000);
const HttpUrl = (description: string) => Type.String({ pattern: '^https?://[^\\s/?#]+[^\\s]*$', maxLength: 2048, description });

export const IceBreakersBody = Type.Object(
  {
    action: ProfileAction,
    iceBreakers: Type.Optional(
      Type.Array(
        Type.Object({ question: NonEmpty('Shown to the user', 1000), payload: Payload('Sent back in the postback when tapped') }),
        {
          minItems: 1,
          maxItems: 4,
          description: 'Required when action is set; at most 4',
        },
      ),
    ),
  },
  rule('iceBreakers', (b) => (b.action === 'set' && b.iceBreakers === undefined ? [required('iceBreakers', 'set')] : [])),
);
export type IceBreakersBody = Static<typeof IceBreakersBody>;

export const MenuItem = Type.Object({
  type: StringEnum(['postback', 'web_url']),
  title: NonEmpty('Menu entry text (Meta: at most 30 characters)', 30),
  payload: Type.Optional(Payload('Required for postback')),
  url: Type.Optional(HttpUrl('Required for web_url')),
});

export const PersistentMenuBody = Type.Object(
  {
    action: ProfileAction,
    composerInputDisabled: Type.Optional(
      Type.Boolean({ description: 'true disables free text; Instagram (social_a) cannot, so only false is accepted there' }),
    ),
    menuItems: Type.Optional(Type.Array(MenuItem, { minItems: 1, maxItems: 20, description: 'Required when action is set; at most 20' })),
  },
  rule('persistentMenu', (b) => {
    if (b.action !== 'set') return [];
    if (b.menuItems === undefined) return [required('menuItems', 'set')];
    return list(b.menuItems).flatMap((item, i) => [
      ...(item.type === 'postback' && item.payload === undefined
        ? [{ field: `menuItems[${i}].payload`, message: 'is required for postback' }]
        : []),
      ...(item.type === 'web_url' && item.url === undefined ? [{ field: `menuItems[${i}].url`, message: 'is required for web_url' }] : []),
    ]);
  }),
);
export type PersistentMenuBody = Static<typeof PersistentMenuBody>;

export const GreetingBody = Type.Object(
  {
    action: ProfileAction,
    greetings: Type.Optional(
      Type.Array(
        Type.Object({
          locale: Type.String({
            pattern: '^(default|[a-z]{2,3}_[A-Z]{2})$',
            maxLength: 7,
            description: '"default" or a Meta locale such as pt_BR',
          }),
          text: Type.String({
            minLength: 1,
            maxLength: 160,
            description: 'At most 160 characters; {{user_first_name}} etc. are filled in by Meta',
          }),
        }),
        { minItems: 1, maxItems: 100, description: 'Required when action is set; one entry must have locale "default"' },
      ),
    ),
  },
  rule('greeting', (b) => {
    if (b.action !== 'set') return [];
    if (b.greetings === undefined) return [required('greetings', 'set')];
    const greetings = list(b.greetings);
    const issues: FieldIssue[] = greetings.some((g) => g.locale === 'default')
      ? []
      : [{ field: 'greetings', message: 'needs an entry with locale "default"' }];
    const seen = new Set<unknown>();
    greetings.forEach((g, i) => {
      if (seen.has(g.locale)) issues.push({ field: `greetings[${i}].locale`, message: `${g.locale} appears more than once` });
      seen.add(g.locale);
    });
    return issues;
  }),
);
export type GreetingBody = Static<typeof GreetingBody>;

export const PersonasBody = Type.Object(
  {
    action: StringEnum(['list', 'create', 'delete']),
    name: Type.Optional(NonEmpty('Required when action is create', 200)),
    profilePictureUrl: Type.Optional(HttpUrl('Required when action is create; a public image Meta downloads')),
    personaId: Type.Optional(Type.String({ pattern: '^[0-9]{1,32}$', maxLength: 32, description: 'Required when action is delete' })),
  },
  rule('personas', (b) => {
    if (b.action === 'create') return (['name', 'profilePictureUrl'] as const).filter((f) => !b[f]).map((f) => required(f, 'create'));
    return b.action === 'delete' && !b.personaId ? [required('personaId', 'delete')] : [];
  }),
);
export type PersonasBody = Static<typeof PersonasBody>;

export const SocialConfigResult = Envelope(
  Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description: 'The configuration as stored after Meta accepted it (docs/api/social-config.md)',
  }),
  { $id: 'SocialConfigResult' },
);
