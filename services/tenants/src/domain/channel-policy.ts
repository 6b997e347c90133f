import { conflict, validation } from '@convo/kit';
import type { ChannelsRepository } from '../db/channels.repository';
import type { PlanDoc, TenantDoc } from '../db/models';
import { CHANNEL_ENTRIES, type ChannelType } from './catalog';
import type { Compensation } from './compensation';

/** An inactive tenant keeps its channels but opens no new ones. */
export function assertTenantActive(tenant: TenantDoc): void {
  if (tenant.status !== 'active') throw conflict('ERR_TENANT_INACTIVE', `Tenant ${tenant._id} is inactive`);
}

/**
 * A type must be admitted by every non-empty allowedChannels list that applies: the tenant's and
 * its plan's. Empty lists restrict nothing.
 */
export function assertTypeAllowed(type: ChannelType, tenant: TenantDoc, plan: PlanDoc | null): void {
  const entries = CHANNEL_ENTRIES[type];
  const lists = [
    ['tenant', tenant.allowedChannels ?? []],
    ['plan', plan?.allowedChannels ?? []],
  ] as const;
  for (const [owner, list] of lists) {
    if (list.length === 0 || entries.some((e) => list.includes(e))) continue;
    throw validation(
      'Channel type not allowed',
      [{ field: 'type', message: `${type} (${entries.join(' or ')}) is not in the ${owner}'s allowedChannels: ${list.join(', ')}` }],
      'ERR_CHANNEL_TYPE_NOT_ALLOWED',
    );
  }
}

interface Limit {
  scope: string;
  max: number;
  count: () => Promise<number>;
  describe: string;
}

/**
 * Connection limits: maxConnections (the plan's when the tenant has one) over all channels, and
 * channelConnectionLimits per channel kind; 0 means unlimited. Counting and then inserting would
 * let concurrent creates overshoot, so each counted channel also holds a numbered slot claim
 * (1..limit); a create that finds every slot taken is refused.
 */
export class ConnectionLimits {
  constructor(private readonly channels: ChannelsRepository) {}

  async reserve(tenant: TenantDoc, plan: PlanDoc | null, kind: string, channelId: number, undo: Compensation): Promise<void> {
    for (const limit of this.limitsOf(tenant, plan, kind)) {
      if (limit.max > 0) await this.takeSlot(tenant._id, limit, channelId, undo);
    }
  }

  private limitsOf(tenant: TenantDoc, plan: PlanDoc | null, kind: string): Limit[] {
    return [
      {
        scope: 'all',
        max: plan?.maxConnections ?? tenant.maxConnections,
        count: () => this.channels.countChannels(tenant._id),
        describe: 'connections',
      },
      {
        scope: kind,
        max: tenant.channelConnectionLimits?.[kind] ?? 0,
        count: () => this.channels.countChannelsOfKind(tenant._id, kind),
        describe: `${kind} connections`,
      },
    ];
  }

  private async takeSlot(tenantId: number, limit: Limit, channelId: number, undo: Compensation): Promise<void> {
    const used = await limit.count();
    // Free slots are most likely above the count; below it only after a compensated create.
    const order = [...range(used + 1, limit.max), ...range(1, Math.min(used, limit.max))];
    for (const n of used < limit.max ? order : []) {
      const id = `${tenantId}:${limit.scope}:${n}`;
      if (await this.channels.claimSlot(id, tenantId, channelId)) {
        undo.add(() => this.channels.releaseSlot(id));
        return;
      }
    }
    throw conflict('ERR_CONNECTION_LIMIT', `The tenant has reached its limit of ${limit.max} ${limit.describe}`);
  }
}

const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
