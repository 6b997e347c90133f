import { GATEWAY_ALIASES } from '@convo/kit';
import Type from 'typebox';
import { StringEnum } from './common';

// A real provisioning client sends `paymentGateway: "asaas"` with `asaasCustomerId`, `asaasToken`
// and `asaas: "enabled"`; those names (the kit's GATEWAY_ALIASES) are accepted wherever the seed
// takes `gateway_a` … `gateway_d`, and answers use the seed's names.

const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Rewrites a tenant body's real gateway names into the seed's, before validation: `paymentGateway`,
 * the `<name>CustomerId`/`<name>Token` pair, and the legacy flag (`asaas` → `gateway_a`). A seed
 * name sent beside its alias wins. Runs as the tenant routes' preValidation hook.
 */
export function canonicalGatewayNames(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const b = body as Record<string, unknown>;
  if (typeof b.paymentGateway === 'string' && has(GATEWAY_ALIASES, b.paymentGateway)) {
    b.paymentGateway = GATEWAY_ALIASES[b.paymentGateway as keyof typeof GATEWAY_ALIASES];
  }
  for (const [alias, gw] of Object.entries(GATEWAY_ALIASES)) {
    for (const suffix of ['CustomerId', 'Token']) {
      if (!has(b, `${alias}${suffix}`)) continue;
      if (!has(b, `${gw}${suffix}`)) b[`${gw}${suffix}`] = b[`${alias}${suffix}`];
      delete b[`${alias}${suffix}`];
    }
  }
  if (has(b, 'asaas')) {
    if (!has(b, 'gateway_a')) b.gateway_a = b.asaas;
    delete b.asaas;
  }
}

/** The aliases as the OpenAPI document shows them (the hook has rewritten them before validation). */
export const gatewayAliasFields = (flagValues: readonly string[]) => ({
  ...Object.fromEntries(
    Object.entries(GATEWAY_ALIASES).flatMap(([alias, gw]) => [
      [`${alias}CustomerId`, Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: `Alias of ${gw}CustomerId` }))],
      [`${alias}Token`, Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: `Alias of ${gw}Token` }))],
    ]),
  ),
  asaas: Type.Optional(StringEnum(flagValues, { description: 'Alias of the gateway_a flag' })),
});
