import { nextSequence } from '@convo/kit';
import type { Connection } from 'mongoose';
import { registerModels, type ApiIntegrationDoc, type ChannelDoc, type Models, type PlanDoc, type TenantDoc, type UserDoc } from './models';

/** Every query of the tenants service, one method each; all filter on an indexed key. */
export class TenantsRepository {
  readonly models: Models;

  constructor(private readonly conn: Connection) {
    this.models = registerModels(conn);
  }

  async init(): Promise<void> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
  }

  nextId(kind: 'tenant' | 'user' | 'plan' | 'channel'): Promise<number> {
    return nextSequence(this.conn, kind);
  }

  findPlan(id: number) {
    return this.models.Plan.findById(id).lean<PlanDoc>().exec();
  }

  listPlans() {
    return this.models.Plan.find().sort({ _id: 1 }).lean<PlanDoc[]>().exec();
  }

  async insertPlan(plan: PlanDoc): Promise<PlanDoc> {
    await this.models.Plan.create(plan);
    return plan;
  }

  findTenant(id: number) {
    return this.models.Tenant.findById(id).lean<TenantDoc>().exec();
  }

  listTenants(limit: number) {
    return this.models.Tenant.find().sort({ _id: 1 }).limit(limit).lean<TenantDoc[]>().exec();
  }

  async insertTenant(tenant: TenantDoc): Promise<void> {
    await this.models.Tenant.create(tenant);
  }

  async deleteTenant(id: number): Promise<void> {
    await this.models.Tenant.deleteOne({ _id: id }).exec();
  }

  findUserByEmail(email: string) {
    return this.models.User.findOne({ email }).lean<UserDoc>().exec();
  }

  async insertUser(user: UserDoc): Promise<void> {
    await this.models.User.create(user);
  }

  findTenantAdmin(tenantId: number) {
    return this.models.User.findOne({ tenantId, profile: 'admin' }).sort({ _id: 1 }).lean<UserDoc>().exec();
  }

  async deleteChannel(id: number): Promise<void> {
    await this.models.Channel.deleteOne({ _id: id }).exec();
  }

  findChannel(tenantId: number, id: number) {
    return this.models.Channel.findOne({ _id: id, tenantId }).lean<ChannelDoc>().exec();
  }

  findChannelById(id: number) {
    return this.models.Channel.findById(id).lean<ChannelDoc>().exec();
  }

  listChannels(tenantId: number) {
    return this.models.Channel.find({ tenantId }).sort({ _id: 1 }).lean<ChannelDoc[]>().exec();
  }

  async insertChannel(channel: ChannelDoc): Promise<void> {
    await this.models.Channel.create(channel);
  }

  findApiByTokenHash(tokenHash: string) {
    return this.models.Api.findOne({ tokenHash }).lean<ApiIntegrationDoc>().exec();
  }

  async insertApi(api: ApiIntegrationDoc): Promise<void> {
    await this.models.Api.create(api);
  }
}
