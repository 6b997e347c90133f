import { ClaimStore } from '@convo/kit/claims';
import { anyOf } from '@convo/kit/mongo';
import { countByTenant } from './count-by-tenant';
import type { ChannelDoc, LinkClaimDoc, Models, SlotClaimDoc } from './models';

/** Channels, the slots that count them against limits, and the claims of hybrid links. */
export class ChannelsRepository {
  private readonly slots: ClaimStore<SlotClaimDoc>;
  private readonly links: ClaimStore<LinkClaimDoc>;

  constructor(private readonly models: Models) {
    this.slots = new ClaimStore(models.SlotClaim);
    this.links = new ClaimStore(models.LinkClaim);
  }

  findChannel(tenantId: number, id: number) {
    return this.models.Channel.findOne({ _id: id, tenantId }).lean<ChannelDoc>().exec();
  }

  findChannelById(id: number) {
    return this.models.Channel.findById(id).lean<ChannelDoc>().exec();
  }

  /** The oldest channel of a kind holding a provider account id (see FindChannelByAccount). */
  findChannelByAccount(type: string, field: 'tokenAPI' | 'pageId', accountId: string) {
    return this.models.Channel.findOne({ type, [field]: accountId })
      .sort({ _id: 1 })
      .lean<ChannelDoc>()
      .exec();
  }

  listChannels(tenantId: number) {
    return this.models.Channel.find({ tenantId }).sort({ _id: 1 }).lean<ChannelDoc[]>().exec();
  }

  /** Every channel of these tenants, by tenant then id: index (tenantId, _id). */
  listChannelsOf(tenantIds: readonly number[]) {
    return this.models.Channel.find({ tenantId: anyOf(tenantIds) })
      .sort({ tenantId: 1, _id: 1 })
      .lean<ChannelDoc[]>()
      .exec();
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

  /** How many channels each of these tenants has (a tenant with none is absent). */
  countChannelsOf(tenantIds: readonly number[]) {
    return countByTenant(this.models.Channel, tenantIds);
  }

  countChannelsOfKind(tenantId: number, channelKind: string): Promise<number> {
    return this.models.Channel.countDocuments({ tenantId, channelKind }).exec();
  }

  // ---- connection slots

  claimSlot(id: string, tenantId: number, channelId: number): Promise<boolean> {
    return this.slots.claim({ _id: id, tenantId, channelId });
  }

  async releaseSlot(id: string): Promise<void> {
    await this.slots.release(id);
  }

  // ---- hybrid link claims

  claimLink(doc: LinkClaimDoc): Promise<boolean> {
    return this.links.claim(doc);
  }

  findLinkClaim(id: string) {
    return this.links.find(id);
  }

  /** Points a claim this waba holds at another transport; false when the waba does not hold it. */
  async repointLinkClaim(id: string, wabaId: number, transportId: number): Promise<boolean> {
    return this.links.takeOver(id, { wabaId }, { transportId });
  }

  /** Releases a claim only if it belongs to this waba's link. */
  async releaseLink(id: string, wabaId: number): Promise<void> {
    await this.links.release(id, { wabaId });
  }
}
