import { Issues } from '@convo/kit';
import type { PlanDoc } from '../db/models';

export type { PlanDoc };
import type { TenantsRepository } from '../db/tenants.repository';
import { ALLOWED_CHANNELS, MENU_VISIBILITY } from './catalog';
import { checkEnumList } from './validation';

export interface NewPlan {
  name: string;
  maxUsers: number;
  maxConnections: number;
  features: string[];
  allowedChannels: string[];
}

/** What `SEED_DEV_PLANS=true` puts into an empty installation: one plan that restricts nothing. */
export const DEV_PLANS: NewPlan[] = [
  { name: 'Development', maxUsers: 10, maxConnections: 10, features: [...MENU_VISIBILITY], allowedChannels: [] },
];

/** How many features (and allowed channel kinds) a plan may list. */
export const MAX_PLAN_FEATURES = 50;

export class PlansService {
  constructor(private readonly repo: TenantsRepository) {}

  listPlans(): Promise<PlanDoc[]> {
    return this.repo.listPlans();
  }

  findPlan(id: number): Promise<PlanDoc | null> {
    return this.repo.findPlan(id);
  }

  /** The plans of these ids, by id (the dashboard's page of tenants: one read for the page). */
  async findPlans(ids: readonly number[]): Promise<Map<number, PlanDoc>> {
    return new Map((await this.repo.findPlans(ids)).map((p) => [p._id, p]));
  }

  async createPlan(input: NewPlan): Promise<PlanDoc> {
    const issues = new Issues();
    issues.check(input.name.trim().length > 0, 'name', 'is required');
    issues.check(input.maxUsers >= 0, 'maxUsers', 'must be an integer ≥ 0');
    issues.check(input.maxConnections >= 0, 'maxConnections', 'must be an integer ≥ 0 (0 = unlimited)');
    issues.check(input.name.length <= 200, 'name', 'at most 200 characters');
    // Every list a caller sends has a bound here, whichever entry point (GraphQL, gRPC) it came by.
    issues.check(input.features.length <= MAX_PLAN_FEATURES, 'features', `at most ${MAX_PLAN_FEATURES}`);
    issues.check(
      input.features.every((f) => f.length <= 100),
      'features',
      'each at most 100 characters',
    );
    issues.check(input.allowedChannels.length <= MAX_PLAN_FEATURES, 'allowedChannels', `at most ${MAX_PLAN_FEATURES}`);
    if (!issues.any) checkEnumList(issues, 'allowedChannels', input.allowedChannels, ALLOWED_CHANNELS);
    issues.throwIfAny('Invalid plan');
    return this.repo.insertPlan({
      _id: await this.repo.nextId('plan'),
      name: input.name.trim(),
      maxUsers: input.maxUsers,
      maxConnections: input.maxConnections,
      features: input.features,
      allowedChannels: [...new Set(input.allowedChannels)],
      createdAt: new Date(),
    });
  }

  /**
   * Seeds the development plans when there are none. Replicas starting together race for one
   * claim, so the plans are written once.
   */
  async seedDevPlans(): Promise<PlanDoc[]> {
    if (await this.repo.hasPlans()) return [];
    if (!(await this.repo.claimSeed('dev-plans'))) return [];
    const created: PlanDoc[] = [];
    for (const plan of DEV_PLANS) created.push(await this.createPlan(plan));
    return created;
  }
}
