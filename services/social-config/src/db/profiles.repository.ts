import { Schema, type Connection } from 'mongoose';

export interface IceBreakerDoc {
  question: string;
  payload: string;
}

export interface GreetingDoc {
  locale: string;
  text: string;
}

/** Meta's persistent-menu item types this service stores. */
export const MENU_ITEM_TYPES = ['postback', 'web_url'] as const;

export interface MenuItemDoc {
  type: (typeof MENU_ITEM_TYPES)[number];
  title: string;
  /** postback items only. */
  payload?: string;
  /** web_url items only. */
  url?: string;
}

export interface PersistentMenuDoc {
  composerInputDisabled: boolean;
  menuItems: MenuItemDoc[];
}

export interface PersonaDoc {
  personaId: string;
  name: string;
  profilePictureUrl: string;
  createdAt: Date;
}

export interface ProfileDoc {
  _id: number;
  tenantId: number;
  iceBreakers: IceBreakerDoc[];
  greetings: GreetingDoc[];
  /** null: no menu set (or deleted). Absent in documents written before it existed. */
  persistentMenu?: PersistentMenuDoc | null;
  /**
   * The personas created through this API and not deleted through it, keyed by persona id: a
   * keyed field is added and removed atomically ($set/$unset), where FerretDB's $pull cannot
   * match an array element by one of its fields.
   */
  personas?: Record<string, PersonaDoc>;
  updatedAt: Date;
}

/** The fields a configuration action replaces as a whole. */
export type ProfileFields = Partial<Pick<ProfileDoc, 'iceBreakers' | 'greetings' | 'persistentMenu'>>;

/** The current social configuration of each channel, keyed by channel id. */
export class ProfilesRepository {
  private readonly Profile;

  constructor(conn: Connection) {
    const schema = new Schema<ProfileDoc>(
      {
        _id: Number,
        tenantId: Number,
        iceBreakers: [{ _id: false, question: String, payload: String }],
        greetings: [{ _id: false, locale: String, text: String }],
        persistentMenu: {
          type: new Schema(
            {
              composerInputDisabled: Boolean,
              menuItems: [{ _id: false, type: { type: String }, title: String, payload: String, url: String }],
            },
            { _id: false },
          ),
          default: null,
        },
        personas: {
          type: Map,
          of: new Schema({ personaId: String, name: String, profilePictureUrl: String, createdAt: Date }, { _id: false }),
          default: undefined,
        },
        updatedAt: Date,
      },
      { versionKey: false },
    );
    schema.index({ tenantId: 1, _id: 1 });
    this.Profile = conn.model<ProfileDoc>('ChannelProfile', schema, 'channel_profiles');
  }

  async init(): Promise<void> {
    await this.Profile.createIndexes();
  }

  find(tenantId: number, channelId: number) {
    return this.Profile.findOne({ _id: channelId, tenantId }).lean<ProfileDoc>().exec();
  }

  findById(channelId: number) {
    return this.Profile.findById(channelId).lean<ProfileDoc>().exec();
  }

  /** Replaces the given fields of the channel's profile, creating the profile on first use. */
  async setFields(tenantId: number, channelId: number, fields: ProfileFields): Promise<void> {
    await this.Profile.updateOne({ _id: channelId, tenantId }, { $set: { ...fields, updatedAt: new Date() } }, { upsert: true }).exec();
  }

  async addPersona(tenantId: number, channelId: number, persona: PersonaDoc): Promise<void> {
    await this.Profile.updateOne(
      { _id: channelId, tenantId },
      { $set: { [personaPath(persona.personaId)]: persona, updatedAt: new Date() } },
      { upsert: true },
    ).exec();
  }

  async removePersona(tenantId: number, channelId: number, personaId: string): Promise<void> {
    await this.Profile.updateOne(
      { _id: channelId, tenantId },
      { $unset: { [personaPath(personaId)]: '' }, $set: { updatedAt: new Date() } },
    ).exec();
  }
}

/** Meta's persona ids are digits, which also makes them safe field names. */
export const PERSONA_ID = /^[0-9]{1,32}$/;

function personaPath(personaId: string): string {
  if (!PERSONA_ID.test(personaId)) throw new Error(`persona id ${JSON.stringify(personaId)} is not a Meta id`);
  return `personas.${personaId}`;
}
