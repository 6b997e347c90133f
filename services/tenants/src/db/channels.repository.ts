import { claim } from './tenants.repository';
import type { ChannelDoc, LinkClaimDoc, Models } from './models';

/** Channels, the slots that count them against limits, and the claims of hybrid links. */
export class ChannelsRepository {
  constructor(private readonly models: Models) {}

  findChannel(tenantId: number, id: number) {
    return this.models.Channel.findOne({ _id: id, tenantId }).lean<ChannelDoc>().exec();
  }

  findChannelById(id: number) {
    return this.models.Channel.findById(id).lean<ChannelDoc>().exec();
  }

  /** The oldest channel of a kind holding a provider account id (see FindChannelByAccount). */
  findChannelByAccount(type: string, field: 'tokenAPI' | 'pageId', accountId: string) {
    return this.models.Channel.findOne({ type, [field]: accountId }).sort({ _id: 1 }).lean<ChannelDoc>().exec();
  }

  listChannels(tenantId: number) {
    return this.models.Channel.find({ tenantId }).sort({ _id: 1 }).lean<ChannelDoc[]>().exec();
  }

  async insertChannel(channel: ChannelDoc): Promise<void> {
    await this.models.Channel.create(channel);
  }

  async deleteChannel(id: number): Promise<void> {
    await this.models.Channel.deleteOne({ _id: id }).exec();
  }

  /** Sets and unsets fields; answers the stored channel. */
  updateChannel(id: number, set: Record<string, unknown>, unset: string[] = []) {
    const update = { $set: set, ...(unset.length ? { $unset: Object.fromEntries(unset.map((f) => [f, 1])) } : {}) };
    return this.models.Channel.findByIdAndUpdate(id, update, { returnDocument: 'after' }).lean<ChannelDoc>().exec();
  }

  countChannels(tenantId: number): Promise<number> {
    return this.models.Channel.countDocuments({ tenantId }).exec();
  }

  countChannelsOfKind(tenantId: number, channelKind: string): Promise<number> {
    return this.models.Channel.countDocuments({ tenantId, channelKind }).exec();
  }

  // ---- connection slots

  claimSlot(id: string, tenantId: number, channelId: number): Promise<boolean> {
    return claim(() => this.models.SlotClaim.create({ _id: id, tenantId, channelId }));
  }

  async releaseSlot(id: string): Promise<void> {
    await this.models.SlotClaim.deleteOne({ _id: id }).exec();
  }

  // ---- hybrid link claims

  claimLink(doc: LinkClaimDoc): Promise<boolean> {
    return claim(() => this.models.LinkClaim.create(doc));
  }

  findLinkClaim(id: string) {
    return this.models.LinkClaim.findById(id).lean<LinkClaimDoc>().exec();
  }

  /** Points a claim this waba holds at another transport; false when the waba does not hold it. */
  async repointLinkClaim(id: string, wabaId: number, transportId: number): Promise<boolean> {
    const res = await this.models.LinkClaim.updateOne({ _id: id, wabaId }, { $set: { transportId } }).exec();
    return res.matchedCount === 1;
  }

  /** Releases a claim only if it belongs to this waba's link. */
  async releaseLink(id: string, wabaId: number): Promise<void> {
    await this.models.LinkClaim.deleteOne({ _id: id, wabaId }).exec();
  }
}
