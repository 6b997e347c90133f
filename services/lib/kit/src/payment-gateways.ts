/** The seed's payment gateways (the tenant API's `paymentGateway`), in the gateway's validation and the tenants service alike. */
export const PAYMENT_GATEWAYS = ['gateway_a', 'gateway_b', 'gateway_c', 'gateway_d'] as const;
export type PaymentGateway = (typeof PAYMENT_GATEWAYS)[number];

/**
 * The gateways the seed's neutral names stand for (CONVENTIONS, "Payment gateways as the real
 * ones"): each real name is accepted wherever the seed takes a gateway name; answers use the seed's.
 */
export const GATEWAY_ALIASES = {
  asaas: 'gateway_a',
  stripe: 'gateway_b',
  mercadopago: 'gateway_c',
  efi: 'gateway_d',
  gerencianet: 'gateway_d',
} as const satisfies Readonly<Record<string, PaymentGateway>>;
