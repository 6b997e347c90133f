import { findByIds, requestLoader } from '@convo/kit/graphql/loaders';
import type { InspectionService } from '../domain/inspection.service';
import { toGraphMessage } from './message.resolver';

/** Messages named by another subgraph: one loader per request, one `_id` read per distinct message. */
export const messageReference = (inspection: InspectionService) => async (ref: { id: number | string }, context: unknown) => {
  const loader = requestLoader(context, 'Message', (ids: readonly string[]) => findByIds(ids, (id) => inspection.findAnyMessage(id)));
  const doc = await loader.load(String(ref.id));
  return doc ? toGraphMessage(doc) : null;
};
