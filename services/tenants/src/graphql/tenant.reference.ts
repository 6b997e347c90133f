import type { TenantsRepository } from '../db/tenants.repository';
import { toTenant } from '../domain/records';
import { toGraphTenant } from './tenant.resolver';

export const tenantReference = (repo: TenantsRepository) => async (ref: { id: number | string }) => {
  const doc = await repo.findTenant(Number(ref.id));
  return doc ? toGraphTenant(toTenant(doc)) : null;
};
