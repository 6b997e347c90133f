import { obj } from '@convo/kit';
import Type from 'typebox';
import { Amount, StringEnum } from '../common';
import {
  type Body,
  type InteractiveDef,
  Strict,
  Text,
  Opt,
  List,
  HttpUrl,
  TicketId,
  TemplateButtons,
  isText,
  arr,
  templateButtonRules,
  lines,
  buttonsLine,
} from './shared';

// ---- social_a (Instagram) and social_b (Messenger) -----------------------------------------

const social = (route: 'social_a' | 'social_b', type: string) => `/sendInteractive/${route}/${type}`;

export function socialDefs(route: 'social_a' | 'social_b'): InteractiveDef[] {
  // Instagram texts stop at 1000 characters, Messenger's at 2000.
  const textMax = route === 'social_a' ? 1000 : 2000;
  return [
    {
      route,
      type: 'quickReply',
      path: social(route, 'quickReply'),
      summary: 'A text with up to 13 quick replies',
      schema: Strict({
        ...TicketId,
        message: Text(textMax),
        quickReplies: List(
          Strict({
            content_type: StringEnum(['text', 'user_phone_number']),
            title: Opt(Text(20, 'Required for text; not for user_phone_number')),
            payload: Opt(Text(1000, 'Required for text; not for user_phone_number')),
          }),
          1,
          13,
        ),
      }),
      check: (b) =>
        arr(b.quickReplies).flatMap((raw, i) => {
          const q = obj(raw);
          const at = `quickReplies[${i}]`;
          if (q.content_type === 'text') {
            return (['title', 'payload'] as const)
              .filter((f) => q[f] === undefined)
              .map((f) => ({ field: `${at}.${f}`, message: 'is required for text quick replies' }));
          }
          if (q.content_type === 'user_phone_number') {
            return (['title', 'payload'] as const)
              .filter((f) => q[f] !== undefined)
              .map((f) => ({
                field: `${at}.${f}`,
                message: "is not used by user_phone_number (the contact's own number is offered); leave it out",
              }));
          }
          return [];
        }),
      text: (b) => lines(b.message, buttonsLine(b.quickReplies.map((q: Body) => q.title ?? 'phone number'))),
    },
    {
      route,
      type: 'buttonTemplate',
      path: social(route, 'buttonTemplate'),
      summary: 'A text with up to 3 buttons',
      schema: Strict({ ...TicketId, message: Text(640), buttons: TemplateButtons(1) }),
      check: (b) => templateButtonRules(b.buttons, 'buttons'),
      text: (b) => lines(b.message, buttonsLine(b.buttons.map((x: Body) => x.title))),
    },
    {
      route,
      type: 'genericTemplate',
      path: social(route, 'genericTemplate'),
      summary: 'Up to 10 cards',
      schema: Strict({
        ...TicketId,
        elements: List(
          Strict({ title: Text(80), subtitle: Opt(Text(80)), image_url: Opt(HttpUrl('Card image')), buttons: Opt(TemplateButtons(1)) }),
          1,
          10,
          'At most 10 cards',
        ),
      }),
      check: (b) =>
        arr(b.elements).flatMap((raw, i) => {
          const e = obj(raw);
          const more = e.subtitle !== undefined || e.image_url !== undefined || e.buttons !== undefined;
          return [
            ...(more ? [] : [{ field: `elements[${i}]`, message: 'needs a subtitle, an image_url or buttons besides its title' }]),
            ...templateButtonRules(e.buttons, `elements[${i}].buttons`),
          ];
        }),
      text: (b) => lines(...b.elements.map((e: Body) => lines(e.title, e.subtitle))),
    },
  ];
}

const RECEIPT_ELEMENT = Strict({
  title: Text(80),
  price: Amount(),
  quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  subtitle: Opt(Text(80)),
  currency: Opt(Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3 })),
  image_url: Opt(HttpUrl('Item image')),
});

const FEEDBACK_SCORE_OPTIONS: Record<string, string[]> = {
  csat: ['one_to_five', 'five_stars', 'five_emojis'],
  nps: ['zero_to_ten'],
  ces: ['one_to_seven'],
  free_form: [],
};
const hasUrl = (v: unknown) => isText(v) && /https?:\/\/|www\./i.test(v);

export const SOCIAL_B_ONLY: InteractiveDef[] = [
  {
    route: 'social_b',
    type: 'mediaTemplate',
    path: social('social_b', 'mediaTemplate'),
    summary: 'An image or video with up to 3 buttons',
    schema: Strict({
      ...TicketId,
      mediaType: StringEnum(['image', 'video']),
      mediaUrl: HttpUrl('Public URL of the image or video'),
      buttons: Opt(TemplateButtons(1)),
    }),
    check: (b) => templateButtonRules(b.buttons, 'buttons'),
    text: (b) => lines(`[${b.mediaType}] ${b.mediaUrl}`, buttonsLine(arr(b.buttons).map((x: Body) => x.title))),
  },
  {
    route: 'social_b',
    type: 'receiptTemplate',
    path: social('social_b', 'receiptTemplate'),
    summary: 'An order receipt',
    schema: Strict({
      ...TicketId,
      receipt: Strict({
        recipient_name: Text(80),
        order_number: Text(80, 'Unique per order (Meta refuses a repeat)'),
        currency: Type.String({ pattern: '^[A-Z]{3}$', maxLength: 3, description: 'ISO 4217, e.g. BRL' }),
        payment_method: Text(80),
        summary: Strict({
          total_cost: Amount(),
          subtotal: Opt(Amount()),
          shipping_cost: Opt(Amount()),
          total_tax: Opt(Amount()),
        }),
        elements: List(RECEIPT_ELEMENT, 1, 100),
        merchant_name: Opt(Text(80)),
        order_url: Opt(HttpUrl('The order page')),
        timestamp: Opt(Type.String({ pattern: '^[0-9]{1,12}$', maxLength: 12, description: 'Unix seconds' })),
        address: Opt(
          Strict({
            street_1: Text(200),
            street_2: Opt(Text(200)),
            city: Text(100),
            postal_code: Text(20),
            state: Text(100),
            country: Text(100),
          }),
        ),
        adjustments: Opt(List(Strict({ name: Text(80), amount: Type.Number({ minimum: -1e12, maximum: 1e12 }) }), 1, 20)),
      }),
    }),
    text: (b) =>
      lines(
        `Receipt ${b.receipt.order_number} for ${b.receipt.recipient_name}: ${b.receipt.summary.total_cost} ${b.receipt.currency}`,
        ...b.receipt.elements.map((e: Body) => `- ${e.quantity} × ${e.title} ${e.price}`),
      ),
  },
  {
    route: 'social_b',
    type: 'messageTag',
    path: social('social_b', 'messageTag'),
    summary: 'A text outside the 24-hour window, under a message tag',
    schema: Strict({
      ...TicketId,
      message: Text(2000),
      tag: StringEnum(['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'], {
        description: "Meta's current tags (CUSTOMER_FEEDBACK goes with customerFeedback only)",
      }),
    }),
    text: (b) => lines(b.message, `(${b.tag})`),
  },
  {
    route: 'social_b',
    type: 'customerFeedback',
    path: social('social_b', 'customerFeedback'),
    summary: 'A satisfaction survey (customer feedback template)',
    schema: Strict({
      ...TicketId,
      title: Text(65),
      subtitle: Opt(Text(80)),
      button_title: Opt(Text(20, 'Label of the button that opens the survey')),
      business_privacy_url: HttpUrl('Your privacy policy'),
      expires_in_days: Opt(Type.Integer({ minimum: 1, maximum: 7 })),
      feedback_screens: List(
        Strict({
          questions: List(
            Strict({
              id: Type.String({ pattern: '^[A-Za-z0-9_]{1,80}$', maxLength: 80, description: 'Letters, digits and _' }),
              type: StringEnum(['csat', 'nps', 'ces', 'free_form']),
              title: Type.String({ minLength: 5, maxLength: 85 }),
              score_label: Opt(StringEnum(['neg_pos', 'hard_easy', 'dis_sat', 'unlike_like', 'poor_great', 'none'])),
              score_option: Opt(StringEnum(['one_to_five', 'five_stars', 'five_emojis', 'zero_to_ten', 'one_to_seven'])),
              follow_up: Opt(Strict({ type: StringEnum(['free_form']), placeholder: Opt(Text(65)) })),
            }),
            1,
            1,
            'Exactly one question',
          ),
        }),
        1,
        1,
        'Exactly one screen',
      ),
    }),
    check: (b) => [
      ...(['title', 'subtitle', 'button_title'] as const)
        .filter((f) => hasUrl(b[f]))
        .map((field) => ({ field, message: 'may not contain a URL' })),
      ...arr(b.feedback_screens).flatMap((screen, s) =>
        arr(obj(screen).questions).flatMap((raw, i) => {
          const q = obj(raw);
          const allowed = FEEDBACK_SCORE_OPTIONS[q.type as string];
          return allowed && q.score_option !== undefined && !allowed.includes(q.score_option as string)
            ? [
                {
                  field: `feedback_screens[${s}].questions[${i}].score_option`,
                  message: `must be ${allowed.join(' or ') || 'left out'} for ${q.type}`,
                },
              ]
            : [];
        }),
      ),
    ],
    text: (b) => lines(b.title, b.subtitle),
  },
];
