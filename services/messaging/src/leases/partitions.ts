import { isDuplicateKey } from '@convo/kit/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import { claimNextGeneration, generationId } from './generations';

/** One claim of a partition, `_id` = `p<partition>#<gen>` (leases/generations.ts). */
export interface PartitionLeaseDoc {
  _id: string;
  partition: number;
  gen: number;
  owner: string;
  leaseUntil: Date;
  /** Set when the owner gave the partition up (shutdown, rebalancing). */
  finishedAt: Date | null;
}

/** A worker that is alive: it renews this every round. */
export interface WorkerDoc {
  _id: string;
  seenAt: Date;
}

export interface HeldPartition {
  partition: number;
  gen: number;
  leaseUntil: Date;
}

const opts = { versionKey: false as const };

function models(conn: Connection, prefix: string) {
  const leaseName = `${prefix}Lease`;
  const workerName = `${prefix}Worker`;
  if (conn.models[leaseName])
    return { Lease: conn.models[leaseName] as Model<PartitionLeaseDoc>, Worker: conn.models[workerName] as Model<WorkerDoc> };
  const lease = new Schema<PartitionLeaseDoc>(
    { _id: String, partition: Number, gen: Number, owner: String, leaseUntil: Date, finishedAt: { type: Date, default: null } },
    opts,
  );
  const worker = new Schema<WorkerDoc>({ _id: String, seenAt: Date }, opts);
  const collection = prefix.toLowerCase();
  return {
    Lease: conn.model<PartitionLeaseDoc>(leaseName, lease, `${collection}_leases`),
    Worker: conn.model<WorkerDoc>(workerName, worker, `${collection}_workers`),
  };
}

export interface PartitionSettings {
  /** How many partitions the work is split into (fixed for an installation). */
  partitions: number;
  leaseMs: number;
  owner: string;
}

/**
 * Splits a worker pool's work into a fixed number of partitions and gives each partition to one
 * live worker at a time, with a lease renewed every round: what is in a partition is worked on by
 * its holder only. Workers announce themselves in a small collection; each takes its fair share
 * (partitions ÷ live workers, rounded up) and gives back what is above it, so partitions spread
 * over replicas as they come and go. A worker that dies is replaced when its leases run out.
 *
 * Both collections stay small whatever the traffic (one document per worker, and per partition a
 * few generations, pruned), so reading them whole each round costs the same at any data size.
 */
export class PartitionLeases {
  private readonly models;
  private held = new Map<number, HeldPartition>();

  constructor(
    conn: Connection,
    prefix: string,
    private readonly settings: PartitionSettings,
  ) {
    this.models = models(conn, prefix);
  }

  async init(): Promise<void> {
    await Promise.all([this.models.Lease.createIndexes(), this.models.Worker.createIndexes()]);
  }

  /** The partition of a key (a channel id). */
  partitionOf(key: number): number {
    return ((key % this.settings.partitions) + this.settings.partitions) % this.settings.partitions;
  }

  /**
   * True when this worker may START work of the partition that must be finished within
   * `workMs`: it holds the partition and its lease outlives the work. Another worker takes a
   * partition only after its lease has run out, so work started here never overlaps theirs.
   */
  mayStart(partition: number, workMs: number, now = Date.now()): boolean {
    const lease = this.held.get(partition);
    return !!lease && lease.leaseUntil.getTime() - now > workMs;
  }

  holds(partition: number): boolean {
    return this.held.has(partition);
  }

  get heldPartitions(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  /**
   * One round: announce this worker, renew what it holds, give back what is above its share (not
   * the partitions `busy` says have work in flight), and claim free partitions up to its share.
   */
  async maintain(busy: (partition: number) => boolean = () => false): Promise<void> {
    const now = new Date();
    const { leaseMs, owner, partitions } = this.settings;
    await this.models.Worker.updateOne({ _id: owner }, { $set: { seenAt: now } }, { upsert: true }).exec();
    const [workers, leases] = await Promise.all([
      this.models.Worker.find({}).lean<WorkerDoc[]>().exec(),
      this.models.Lease.find({}).lean<PartitionLeaseDoc[]>().exec(),
    ]);
    const alive = workers.filter((w) => now.getTime() - w.seenAt.getTime() < leaseMs).length || 1;
    const share = Math.ceil(partitions / alive);

    const latest = new Map<number, PartitionLeaseDoc>();
    for (const l of leases) if ((latest.get(l.partition)?.gen ?? -1) < l.gen) latest.set(l.partition, l);

    // Renew: only a lease still ours and not about to run out (a renewal written after the lease
    // ran out could overlap a worker that saw it expired and claimed the next generation).
    for (const [partition, lease] of [...this.held]) {
      const current = latest.get(partition);
      const ours = current?.gen === lease.gen && current.owner === owner && !current.finishedAt;
      const left = lease.leaseUntil.getTime() - now.getTime();
      if (!ours || left < leaseMs / 3) {
        this.held.delete(partition);
        continue;
      }
      // Renewed once a third of it is used, not every round: a round every 2 s renewed all 64
      // partitions' leases (about 30 updates a second, nearly all of the dispatcher's writes
      // besides its messages' records), and from two thirds left to one third left there are
      // still many rounds to renew it.
      if (left > (leaseMs * 2) / 3) continue;
      const leaseUntil = new Date(now.getTime() + leaseMs);
      await this.models.Lease.updateOne({ _id: generationId(`p${partition}`, lease.gen) }, { $set: { leaseUntil } }).exec();
      this.held.set(partition, { ...lease, leaseUntil });
    }

    // Give back what is above the share, idle partitions first.
    for (const partition of this.heldPartitions) {
      if (this.held.size <= share) break;
      if (busy(partition)) continue;
      await this.release(partition);
    }

    // Leases of this worker's previous life (the same owner id, restarted: a pod's container): they
    // are ours, so they are taken back now rather than after they run out.
    for (const [partition, lease] of latest) {
      if (this.held.size >= share) break;
      if (this.held.has(partition) || lease.owner !== owner || lease.finishedAt || lease.leaseUntil <= now) continue;
      const leaseUntil = new Date(now.getTime() + leaseMs);
      await this.models.Lease.updateOne({ _id: lease._id }, { $set: { leaseUntil } }).exec();
      this.held.set(partition, { partition, gen: lease.gen, leaseUntil });
    }

    // Claim free partitions up to the share, starting at a place of our own so workers spread.
    const start = hash(owner) % partitions;
    for (let i = 0; i < partitions && this.held.size < share; i++) {
      const partition = (start + i) % partitions;
      if (this.held.has(partition)) continue;
      const current = latest.get(partition);
      if (current && !current.finishedAt && current.leaseUntil > now) continue;
      await this.claim(partition, current?.gen ?? 0);
    }
    await this.prune(leases, latest, now);
  }

  /** Gives every partition back (shutdown): others take them at once instead of after the lease. */
  async releaseAll(): Promise<void> {
    for (const partition of this.heldPartitions) await this.release(partition);
    await this.models.Worker.deleteOne({ _id: this.settings.owner }).exec();
  }

  private async claim(partition: number, knownGen: number): Promise<void> {
    const key = `p${partition}`;
    let leaseUntil = new Date();
    const gen = await claimNextGeneration(
      {
        insert: async (g) => {
          leaseUntil = new Date(Date.now() + this.settings.leaseMs);
          try {
            await this.models.Lease.insertMany(
              [{ _id: generationId(key, g), partition, gen: g, owner: this.settings.owner, leaseUntil, finishedAt: null }],
              { lean: true },
            );
            return true;
          } catch (err) {
            if (isDuplicateKey(err)) return false;
            throw err;
          }
        },
        isLive: async (g) => {
          const doc = await this.models.Lease.findById(generationId(key, g)).lean<PartitionLeaseDoc>().exec();
          return !!doc && !doc.finishedAt && doc.leaseUntil > new Date();
        },
      },
      knownGen,
    );
    if (gen !== null) this.held.set(partition, { partition, gen, leaseUntil });
  }

  private async release(partition: number): Promise<void> {
    const lease = this.held.get(partition);
    if (!lease) return;
    this.held.delete(partition);
    await this.models.Lease.updateOne({ _id: generationId(`p${partition}`, lease.gen) }, { $set: { finishedAt: new Date() } }).exec();
  }

  /** Generations below a partition's latest, and workers gone for a while: nobody reads them again. */
  private async prune(leases: PartitionLeaseDoc[], latest: Map<number, PartitionLeaseDoc>, now: Date): Promise<void> {
    const stale = leases.filter((l) => latest.get(l.partition)!.gen > l.gen).map((l) => l._id);
    if (stale.length) await this.models.Lease.deleteMany({ _id: { $in: stale } }).exec();
    await this.models.Worker.deleteMany({ seenAt: { $lt: new Date(now.getTime() - 10 * this.settings.leaseMs) } }).exec();
  }
}

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
}
