import Type, { type Static } from 'typebox';
import { NonEmpty, StringEnum } from './common';

// The channel-level configuration of the social channels. What depends on `action` ("R when
// set", "payload R for postback") is checked in social-config.routes.ts, with the same envelope.

const ProfileAction = StringEnum(['get', 'set', 'delete'], { description: 'get answers the current configuration; set replaces it; delete removes it' });
/** Meta's limit on a postback payload. */
const Payload = (description: string) => NonEmpty(description, 1000);
const HttpUrl = (description: string) => Type.String({ pattern: '^https?://[^\\s/?#]+[^\\s]*$', maxLength: 2048, description });

export const IceBreakersBody = Type.Object({
  action: ProfileAction,
  iceBreakers: Type.Optional(
    Type.Array(Type.Object({ question: NonEmpty('Shown to the user', 1000), payload: Payload('Sent back in the postback when tapped') }), {
      minItems: 1,
      maxItems: 4,
      description: 'Required when action is set; at most 4',
    }),
  ),
});
export type IceBreakersBody = Static<typeof IceBreakersBody>;

export const MenuItem = Type.Object({
  type: StringEnum(['postback', 'web_url']),
  title: NonEmpty('Menu entry text (Meta: at most 30 characters)', 30),
  payload: Type.Optional(Payload('Required for postback')),
  url: Type.Optional(HttpUrl('Required for web_url')),
});

export const PersistentMenuBody = Type.Object({
  action: ProfileAction,
  composerInputDisabled: Type.Optional(
    Type.Boolean({ description: 'true disables free text; Instagram (social_a) cannot, so only false is accepted there' }),
  ),
  menuItems: Type.Optional(Type.Array(MenuItem, { minItems: 1, maxItems: 20, description: 'Required when action is set; at most 20' })),
});
export type PersistentMenuBody = Static<typeof PersistentMenuBody>;

export const GreetingBody = Type.Object({
  action: ProfileAction,
  greetings: Type.Optional(
    Type.Array(
      Type.Object({
        locale: Type.String({ pattern: '^(default|[a-z]{2,3}_[A-Z]{2})$', maxLength: 7, description: '"default" or a Meta locale such as pt_BR' }),
        text: Type.String({ minLength: 1, maxLength: 160, description: 'At most 160 characters; {{user_first_name}} etc. are filled in by Meta' }),
      }),
      { minItems: 1, maxItems: 100, description: 'Required when action is set; one entry must have locale "default"' },
    ),
  ),
});
export type GreetingBody = Static<typeof GreetingBody>;

export const PersonasBody = Type.Object({
  action: StringEnum(['list', 'create', 'delete']),
  name: Type.Optional(NonEmpty('Required when action is create', 200)),
  profilePictureUrl: Type.Optional(HttpUrl('Required when action is create; a public image Meta downloads')),
  personaId: Type.Optional(Type.String({ pattern: '^[0-9]{1,32}$', maxLength: 32, description: 'Required when action is delete' })),
});
export type PersonasBody = Static<typeof PersonasBody>;
