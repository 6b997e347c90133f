import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { TenantsRepository } from '../db/tenants.repository';
import { toTenant } from '../domain/records';
import { toGraphTenant } from './tenant.resolver';

/** Tenants named by another subgraph: one loader per request, one `_id` read per distinct tenant. */
export const tenantReference = (repo: TenantsRepository) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Tenant', (ids: readonly number[]) => findByIds(ids, (id) => repo.findTenant(id)));
  const doc = await loader.load(Number(ref.id));
  return doc ? toGraphTenant(toTenant(doc)) : null;
};
