import { rule } from '../../validation/rules';
import type { InteractiveDef } from './shared';
import { SOCIAL_B_ONLY, socialDefs } from './social';
import { WABA } from './waba';
import { ENGINE_C, whatsappEngineDefs } from './whatsapp-engines';

export type { InteractiveDef, InteractiveRoute } from './shared';

/**
 * The interactive routes of the seed, one definition each: the body schema (seed fields, plus the
 * limits of the provider behind the route where the seed is silent; docs/api/interactive.md), the
 * rules JSON Schema expresses badly (uniqueness, totals, conditional fields, PIX keys; the schema
 * names them with `x-rules`), and the text the ticket history keeps of the message.
 *
 * Objects drop unknown fields (additionalProperties: false with AJV's removeAdditional), so the
 * JSON handed to the driver carries the seed's fields and nothing else.
 */
const DEFS: InteractiveDef[] = [
  ...whatsappEngineDefs('engine_a'),
  ...whatsappEngineDefs('engine_b'),
  ...ENGINE_C,
  ...WABA,
  ...socialDefs('social_a'),
  ...socialDefs('social_b'),
  ...SOCIAL_B_ONLY,
];

/** Every interactive route, its cross-field rules in its schema (`x-rules`: `<route>.<type>`). */
export const INTERACTIVE: InteractiveDef[] = DEFS.map((def) =>
  def.check ? { ...def, schema: { ...def.schema, ...rule(`interactive.${def.route}.${def.type}`, def.check) } } : def,
);
