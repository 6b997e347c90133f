import { anyOf } from '@convo/kit/mongo';
import type { ApiIntegrationDoc, Models, RevocationDoc } from './models';

/** API integrations and the log of their deletions (revocations). */
export class ApisRepository {
  constructor(private readonly models: Models) {}

  findApi(id: string) {
    return this.models.Api.findById(id).lean<ApiIntegrationDoc>().exec();
  }

  listChannelApis(tenantId: number, sessionId: number) {
    return this.models.Api.find({ tenantId, sessionId }).sort({ createdAt: 1 }).lean<ApiIntegrationDoc[]>().exec();
  }

  /** The integrations of these tenants by tenant, oldest first: index (tenantId, createdAt). At most `max`. */
  firstApisOf(tenantIds: readonly number[], max: number) {
    return this.models.Api.find({ tenantId: anyOf(tenantIds) })
      .sort({ tenantId: 1, createdAt: 1 })
      .limit(max)
      .lean<ApiIntegrationDoc[]>()
      .exec();
  }

  findApiByTokenHash(tokenHash: string) {
    return this.models.Api.findOne({ tokenHash }).lean<ApiIntegrationDoc>().exec();
  }

  async insertApi(api: ApiIntegrationDoc): Promise<void> {
    await this.models.Api.create(api);
  }

  async deleteApi(id: string): Promise<void> {
    await this.models.Api.deleteOne({ _id: id }).exec();
  }

  /** Idempotent: a retried deletion records its revocation once. */
  async recordRevocation(apiId: string, tenantId: number): Promise<void> {
    await this.models.Revocation.updateOne({ _id: apiId }, { $setOnInsert: { tenantId, createdAt: new Date() } }, { upsert: true }).exec();
  }

  revocationsSince(since: Date) {
    return this.models.Revocation.find({ createdAt: { $gte: since } })
      .lean<RevocationDoc[]>()
      .exec();
  }

  async pruneRevocations(before: Date): Promise<void> {
    await this.models.Revocation.deleteMany({ createdAt: { $lt: before } }).exec();
  }
}
