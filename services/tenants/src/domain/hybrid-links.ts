import type { ChannelsRepository } from '../db/channels.repository';
import type { ChannelDoc, LinkClaimDoc } from '../db/models';
import { COEXISTENCE_TRANSPORTS, HYBRID_MODES, isOneOf, UNOFFICIAL_TYPES, type HybridMode } from './catalog';
import { Compensation } from './compensation';
import { parseId } from './validation';

/** The seed's "Hybrid link errors": reported in `data.hybrid.error`, never as HTTP errors. */
export type HybridError =
  | 'ERR_HYBRID_INVALID_MODE'
  | 'ERR_HYBRID_ONLY_WABA'
  | 'ERR_HYBRID_LINKED_SELF'
  | 'ERR_HYBRID_LINKED_NOT_FOUND'
  | 'ERR_HYBRID_LINKED_IN_USE'
  | 'ERR_HYBRID_COEXISTENCE_REQUIRES_LINKED'
  | 'ERR_HYBRID_COEXISTENCE_LINKED_TYPE'
  | 'ERR_HYBRID_INVALID_ID_LINK_TO'
  | 'ERR_HYBRID_INVALID_ID_LINKED_CHANNEL'
  | 'ERR_NO_WAPP_FOUND';

export type HybridOutcome =
  | { present: false }
  | { present: true; applied: false; error: HybridError }
  | { present: true; applied: true; whatsappId: number; hybridMode: HybridMode; linkedChannelId?: number };

/** Link fields as sent; ids as decimal text, `''` = null (clears on an update). */
export interface LinkInput {
  hybridMode?: string;
  linkedChannelId?: string;
  linkToWhatsappId?: string;
}

/** What the caller writes once the link is settled: the channel's own link fields, then `commit`. */
export interface LinkPlan {
  outcome: HybridOutcome;
  set: { hybridMode?: string; linkedChannelId?: number };
  unsetLinked: boolean;
  /** Runs after the channel is written: updates the other side, releases claims given up. */
  commit(): Promise<void>;
}

interface NewChannel {
  id: number;
  tenantId: number;
  type: string;
}

class LinkFailure extends Error {
  constructor(readonly code: HybridError) {
    super(code);
  }
}

const fail = (code: HybridError): never => {
  throw new LinkFailure(code);
};

const isUnofficial = (type: string) => isOneOf(UNOFFICIAL_TYPES, type);
const nothing = async () => undefined;
/** A claim older than this whose link no channel records is left over from a crash. */
const STALE_CLAIM_MS = 60_000;

/**
 * Hybrid links between an official (`waba`) channel and an unofficial transport. One to one: a
 * link holds the claims `waba:<id>` and `transport:<id>` (unique `_id`s), so of two concurrent
 * requests for the same channel only one gets it, on any replica. The waba channel records the
 * link (`linkedChannelId`, `hybridMode`).
 */
export class HybridLinks {
  constructor(private readonly channels: ChannelsRepository) {}

  /** tenantApiCreateSession: claims are taken now (released by `undo`), the waba side written in `commit`. */
  async planCreate(channel: NewChannel, input: LinkInput, undo: Compensation): Promise<LinkPlan> {
    const present = input.hybridMode !== undefined || input.linkedChannelId !== undefined || input.linkToWhatsappId !== undefined;
    if (!present) return { outcome: { present: false }, set: {}, unsetLinked: false, commit: nothing };
    const own = new Compensation();
    return this.settle(() => this.settleCreate(channel, input, own), own, undo, { hybridMode: 'disabled' });
  }

  /** PUT /whatsapp/{id}: the same rules on an existing channel; a changed link releases the old claims. */
  async planUpdate(channel: ChannelDoc, input: LinkInput, undo: Compensation): Promise<LinkPlan> {
    if (input.hybridMode === undefined && input.linkedChannelId === undefined) {
      return { outcome: { present: false }, set: {}, unsetLinked: false, commit: nothing };
    }
    const own = new Compensation();
    const settle = async () => (channel.type === 'waba' ? this.relinkWaba(channel, input, own) : nonWaba(channel._id, input));
    return this.settle(settle, own, undo, {});
  }

  /**
   * A failed link gives back the claims it took at once, since the write around it goes on; on
   * success they are handed to that write, which gives them back if it fails later.
   */
  private async settle(work: () => Promise<LinkPlan>, own: Compensation, outer: Compensation, onFailure: LinkPlan['set']) {
    try {
      const plan = await work();
      own.handOver(outer);
      return plan;
    } catch (err) {
      await own.run();
      if (err instanceof LinkFailure) return failed(err.code, onFailure);
      throw err;
    }
  }

  private async settleCreate(channel: NewChannel, input: LinkInput, undo: Compensation): Promise<LinkPlan> {
    const mode = modeOf(input.hybridMode);
    if (channel.type === 'waba') {
      if (input.linkToWhatsappId !== undefined) fail('ERR_HYBRID_INVALID_ID_LINK_TO');
      const transport = input.linkedChannelId === undefined ? undefined : await this.transport(channel, input.linkedChannelId, mode);
      checkCoexistence(mode, transport);
      if (transport) await this.claimPair(channel.tenantId, channel.id, transport._id, undo);
      return applied(channel.id, mode, transport?._id, { hybridMode: mode, linkedChannelId: transport?._id });
    }
    if (input.linkedChannelId !== undefined) fail('ERR_HYBRID_INVALID_ID_LINKED_CHANNEL');
    if (input.linkToWhatsappId === undefined) return nonWaba(channel.id, input);
    if (!isUnofficial(channel.type)) fail('ERR_HYBRID_INVALID_ID_LINK_TO');
    const waba = await this.wabaToLink(channel, input.linkToWhatsappId);
    checkCoexistence(mode, { type: channel.type });
    await this.claimPair(channel.tenantId, waba._id, channel.id, undo);
    const plan = applied(waba._id, mode, channel.id, { hybridMode: 'disabled' });
    plan.commit = async () => {
      await this.channels.updateChannel(waba._id, { hybridMode: mode, linkedChannelId: channel.id, updatedAt: new Date() });
    };
    return plan;
  }

  private async relinkWaba(waba: ChannelDoc, input: LinkInput, undo: Compensation): Promise<LinkPlan> {
    const mode = input.hybridMode === undefined ? (waba.hybridMode as HybridMode) : modeOf(input.hybridMode);
    const current = waba.linkedChannelId ?? undefined;
    const owner = { id: waba._id, tenantId: waba.tenantId };
    const keep = input.linkedChannelId === undefined;
    const transport = keep
      ? current === undefined
        ? undefined
        : ((await this.channels.findChannelById(current)) ?? undefined)
      : input.linkedChannelId === ''
        ? undefined
        : await this.transport(owner, input.linkedChannelId!, mode);
    checkCoexistence(mode, transport);
    const target = keep ? current : transport?._id;
    const release = await this.moveClaims(waba, current, target, undo);
    const plan = applied(waba._id, mode, target, { hybridMode: mode, ...(target !== undefined ? { linkedChannelId: target } : {}) });
    plan.unsetLinked = target === undefined;
    plan.commit = release;
    return plan;
  }

  /** Claims for the new target; answers the release of what the old link held, run after the write. */
  private async moveClaims(waba: ChannelDoc, current: number | undefined, target: number | undefined, undo: Compensation) {
    if (target === current) return nothing;
    const wabaKey = `waba:${waba._id}`;
    if (target === undefined) {
      return async () => {
        await this.channels.releaseLink(`transport:${current}`, waba._id);
        await this.channels.releaseLink(wabaKey, waba._id);
      };
    }
    if (current === undefined) {
      await this.claimPair(waba.tenantId, waba._id, target, undo);
      return nothing;
    }
    await this.claim('transport', target, { tenantId: waba.tenantId, wabaId: waba._id, transportId: target }, undo);
    if (!(await this.channels.repointLinkClaim(wabaKey, waba._id, target))) {
      await this.claim('waba', waba._id, { tenantId: waba.tenantId, wabaId: waba._id, transportId: target }, undo);
    }
    undo.add(() => this.channels.repointLinkClaim(wabaKey, waba._id, current));
    return () => this.channels.releaseLink(`transport:${current}`, waba._id);
  }

  /**
   * linkedChannelId of a waba channel: an unofficial channel of the same tenant, not itself. A
   * channel of another kind as a coexistence transport is the seed's "type not supported".
   */
  private async transport(owner: { id: number; tenantId: number }, raw: string, mode: HybridMode): Promise<ChannelDoc> {
    const id = parseId(raw) ?? fail('ERR_HYBRID_INVALID_ID_LINKED_CHANNEL');
    if (id === owner.id) fail('ERR_HYBRID_LINKED_SELF');
    const target = (await this.channels.findChannel(owner.tenantId, id)) ?? fail('ERR_HYBRID_LINKED_NOT_FOUND');
    if (!isUnofficial(target.type))
      fail(mode === 'coexistence' ? 'ERR_HYBRID_COEXISTENCE_LINKED_TYPE' : 'ERR_HYBRID_INVALID_ID_LINKED_CHANNEL');
    return target;
  }

  /** linkToWhatsappId of an unofficial channel: a waba channel of the same tenant. */
  private async wabaToLink(channel: NewChannel, raw: string): Promise<ChannelDoc> {
    const id = parseId(raw) ?? fail('ERR_HYBRID_INVALID_ID_LINK_TO');
    if (id === channel.id) fail('ERR_HYBRID_LINKED_SELF');
    const waba = (await this.channels.findChannel(channel.tenantId, id)) ?? fail('ERR_NO_WAPP_FOUND');
    if (waba.type !== 'waba') fail('ERR_HYBRID_INVALID_ID_LINK_TO');
    return waba;
  }

  private async claimPair(tenantId: number, wabaId: number, transportId: number, undo: Compensation): Promise<void> {
    const link = { tenantId, wabaId, transportId };
    await this.claim('waba', wabaId, link, undo);
    await this.claim('transport', transportId, link, undo);
  }

  private async claim(
    side: 'waba' | 'transport',
    channelId: number,
    link: Omit<LinkClaimDoc, '_id' | 'createdAt'>,
    undo: Compensation,
  ): Promise<void> {
    const doc = { _id: `${side}:${channelId}`, ...link, createdAt: new Date() };
    const release = () => this.channels.releaseLink(doc._id, link.wabaId);
    if (await this.channels.claimLink(doc)) return undo.add(release);
    const holder = await this.channels.findLinkClaim(doc._id);
    // The same link already holds it (a repeated request): nothing to take, nothing to give back.
    if (holder && holder.wabaId === link.wabaId && holder.transportId === link.transportId) return;
    if ((await this.dropIfStale(holder)) && (await this.channels.claimLink(doc))) return undo.add(release);
    fail('ERR_HYBRID_LINKED_IN_USE');
  }

  /** A claim left by a request that died half-way: old, and its waba does not record the link. */
  private async dropIfStale(holder: LinkClaimDoc | null): Promise<boolean> {
    if (!holder) return true;
    if (Date.now() - new Date(holder.createdAt).getTime() < STALE_CLAIM_MS) return false;
    const waba = await this.channels.findChannelById(holder.wabaId);
    if (waba?.linkedChannelId === holder.transportId) return false;
    await this.channels.releaseLink(holder._id, holder.wabaId);
    return true;
  }
}

/** An absent mode is `disabled`; anything else must be one of the seed's modes. */
function modeOf(raw: string | undefined): HybridMode {
  if (raw === undefined) return 'disabled';
  return isOneOf(HYBRID_MODES, raw) ? raw : fail('ERR_HYBRID_INVALID_MODE');
}

function checkCoexistence(mode: HybridMode, transport: { type: string } | undefined): void {
  if (mode !== 'coexistence') return;
  if (!transport) fail('ERR_HYBRID_COEXISTENCE_REQUIRES_LINKED');
  if (!COEXISTENCE_TRANSPORTS.includes(transport!.type)) fail('ERR_HYBRID_COEXISTENCE_LINKED_TYPE');
}

/** Channels other than waba take no link; only `disabled` (or clearing a link they lack) applies. */
function nonWaba(id: number, input: LinkInput): LinkPlan {
  const mode = modeOf(input.hybridMode);
  if (mode !== 'disabled') fail('ERR_HYBRID_ONLY_WABA');
  if (input.linkedChannelId) fail('ERR_HYBRID_INVALID_ID_LINKED_CHANNEL');
  return applied(id, mode, undefined, { hybridMode: mode });
}

function applied(whatsappId: number, hybridMode: HybridMode, linkedChannelId: number | undefined, set: LinkPlan['set']): LinkPlan {
  return {
    outcome: { present: true, applied: true, whatsappId, hybridMode, ...(linkedChannelId !== undefined ? { linkedChannelId } : {}) },
    set,
    unsetLinked: false,
    commit: nothing,
  };
}

function failed(error: HybridError, set: LinkPlan['set']): LinkPlan {
  return { outcome: { present: true, applied: false, error }, set, unsetLinked: false, commit: nothing };
}
