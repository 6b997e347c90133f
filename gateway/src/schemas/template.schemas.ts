import Type, { type Static } from 'typebox';
import { rule } from '../validation/rules';
import { contactKeyOf, Id, WabaContactId } from './common';
import { Envelope, Exact } from './envelopes';

/**
 * The template sends of the official channel (waba): `POST {root}/template`, `/templateBody` and
 * `/templateMarketingBody`, in both shapes real clients send: the Cloud API's own message under
 * `templateData`, or the older flat `templateName` / `templateLangCode` / `params` / `components`.
 */

const Str = (maxLength: number, description?: string) => Type.String({ maxLength, description });
const Opt = Type.Optional;
const MediaRef = Type.Object({ link: Opt(Str(2048)), id: Opt(Str(200)), filename: Opt(Str(240)), caption: Opt(Str(1024)) });

/** One parameter as the Cloud API takes it (text, currency, date_time, media, payload, coupon_code). */
const Parameter = Type.Object({
  type: Str(20, 'text, currency, date_time, image, video, document, location, payload, coupon_code, action'),
  text: Opt(Str(4096)),
  parameter_name: Opt(Str(100, 'Named parameters ({{order_id}})')),
  payload: Opt(Str(1000)),
  coupon_code: Opt(Str(20)),
  currency: Opt(
    Type.Object({ fallback_value: Opt(Str(200)), code: Opt(Str(3)), amount_1000: Opt(Type.Integer({ minimum: -1e15, maximum: 1e15 })) }),
  ),
  date_time: Opt(Type.Object({ fallback_value: Opt(Str(200)) })),
  image: Opt(MediaRef),
  video: Opt(MediaRef),
  document: Opt(MediaRef),
  location: Opt(
    Type.Object({
      latitude: Opt(Type.Number({ minimum: -90, maximum: 90 })),
      longitude: Opt(Type.Number({ minimum: -180, maximum: 180 })),
      name: Opt(Str(1000)),
      address: Opt(Str(1000)),
    }),
  ),
});

/** A component of the send: header, body, or a button with its index. */
const Component = Type.Object({
  type: Str(20, 'header, body or button'),
  sub_type: Opt(Str(30, 'Buttons: url, quick_reply, copy_code, ...')),
  index: Opt(Type.Union([Type.Integer({ minimum: 0, maximum: 9 }), Type.String({ maxLength: 1, pattern: '^[0-9]$' })])),
  parameters: Opt(Type.Array(Parameter, { maxItems: 100 })),
});
const Components = Type.Array(Component, { maxItems: 20, description: "The Cloud API's template components" });

const TemplateData = Type.Object({
  messaging_product: Opt(Str(20)),
  recipient_type: Opt(Str(20)),
  to: Opt(WabaContactId('The contact (when number is absent)')),
  recipient: Opt(WabaContactId('The contact as the Cloud API names a BSUID (when number and to are absent)')),
  type: Opt(Str(20)),
  template: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 512 }),
    language: Type.Object({ code: Type.String({ minLength: 1, maxLength: 20 }), policy: Opt(Str(20)) }),
    components: Opt(Components),
  }),
});

/** The contact, under the name either shape gives it. */
const contactOf = (b: { number?: string; templateData?: { to?: string; recipient?: string } }) =>
  b.number || b.templateData?.to || b.templateData?.recipient || '';

export const TemplateSendBody = Type.Object(
  {
    number: Opt(WabaContactId("The contact on the integration's channel; its current ticket there is used, or opened")),
    externalKey: Opt(
      Type.String({ minLength: 1, maxLength: 200, description: 'Idempotency key (120 s), shared with sendMessageByTicket' }),
    ),
    isClosed: Opt(Type.Boolean({ default: false, description: 'Closes the ticket after sending' })),
    ticketId: Opt(Id("Pins the message to this open ticket of the contact on the integration's channel")),
    templateData: Opt(TemplateData),
    templateName: Opt(Type.String({ minLength: 1, maxLength: 512 })),
    templateLangCode: Opt(Type.String({ minLength: 1, maxLength: 20 })),
    params: Opt(
      Type.Array(Type.Union([Type.String({ maxLength: 4096 }), Type.Number({ minimum: -1e15, maximum: 1e15 })]), {
        maxItems: 100,
        description: "The body's parameters in order ({{1}}, {{2}}…)",
      }),
    ),
    components: Opt(Components),
  },
  rule('templateShape', (b) => {
    const issues = [];
    if (!b.templateData && !b.templateName)
      issues.push({ field: 'templateData', message: 'is required (or templateName and templateLangCode)' });
    if (!b.templateData && b.templateName && !b.templateLangCode)
      issues.push({ field: 'templateLangCode', message: 'is required with templateName' });
    if (!contactOf(b)) issues.push({ field: 'number', message: 'is required' });
    return issues;
  }),
);
export type TemplateSendBody = Static<typeof TemplateSendBody>;

type Component = Static<typeof Component>;

/** Either shape as one template: name, language, and the components Meta takes (params become the body's). */
export function templateOf(b: TemplateSendBody): { number: string; name: string; language: string; components: Component[] } {
  const number = contactKeyOf(contactOf(b));
  if (b.templateData) {
    const t = b.templateData.template;
    return { number, name: t.name, language: t.language.code, components: t.components ?? [] };
  }
  const components = [...(b.components ?? [])];
  if (b.params?.length && !components.some((c) => c.type.toLowerCase() === 'body')) {
    components.push({ type: 'body', parameters: b.params.map((p) => ({ type: 'text', text: String(p) })) });
  }
  return { number, name: b.templateName!, language: b.templateLangCode!, components };
}

/** The official channel's catalog: each template with the parameters each of its components takes. */
export const TemplateList = Envelope(
  Exact({
    templates: Type.Array(
      Exact({
        name: Type.String(),
        language: Type.String(),
        category: Type.String(),
        status: Type.String(),
        parameters: Exact({
          header: Type.Integer(),
          body: Type.Integer(),
          buttons: Type.Array(Exact({ index: Type.Integer(), type: Type.String(), parameters: Type.Integer() })),
        }),
      }),
    ),
  }),
  {
    $id: 'TemplateList',
    example: {
      templates: [
        {
          name: 'order_update',
          language: 'pt_BR',
          category: 'UTILITY',
          status: 'APPROVED',
          parameters: { header: 0, body: 2, buttons: [] },
        },
      ],
    },
  },
);
