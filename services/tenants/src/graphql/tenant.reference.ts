import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { TenantsService } from '../domain/tenants.service';
import { toGraphTenant } from './tenant.resolver';

/** Tenants named by another subgraph: one loader per request, one `_id` read per distinct tenant. */
export const tenantReference = (tenants: TenantsService) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Tenant', (ids: readonly number[]) => findByIds(ids, (id) => tenants.findTenant(id)));
  const doc = await loader.load(Number(ref.id));
  return doc ? toGraphTenant(doc) : null;
};
