import { Schema, type Connection } from 'mongoose';

export interface ProfileDoc {
  _id: number;
  tenantId: number;
  iceBreakers: Array<{ question: string; payload: string }>;
  greetings: Array<{ locale: string; text: string }>;
  updatedAt: Date;
}

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
}
