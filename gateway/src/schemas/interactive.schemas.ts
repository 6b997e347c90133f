import type { FieldIssue } from '@convo/kit';
import Type, { type TObject, type TProperties, type TSchema } from 'typebox';
import { normalizePixKey, PIX_TYPES, type PixType } from '../validation/pix';
import { Amount, Id, StringEnum } from './common';

/**
 * The interactive routes of the seed, one definition each: the body schema (seed fields, plus the
 * limits of the provider behind the route where the seed is silent; docs/interactive.md), the
 * rules JSON Schema expresses badly (uniqueness, totals, conditional fields, PIX keys), and the
 * text the ticket history keeps of the message.
 *
 * Objects drop unknown fields (additionalProperties: false with AJV's removeAdditional), so the
 * JSON handed to the driver carries the seed's fields and nothing else.
 */

export type InteractiveRoute = 'engine_a' | 'engine_b' | 'engine_c' | 'waba' | 'social_a' | 'social_b';

/** A body as the handler sees it: validated by the schema when `check` runs after a clean pass. */
type Body = Record<string, any>;

export interface InteractiveDef {
  route: InteractiveRoute;
  /** The type as messaging and the drivers name it ("quickReply"; "button"/"list" for waba). */
  type: string;
  /** The REST path under {root}. */
  path: string;
  summary: string;
  schema: TObject;
  /**
   * Cross-field rules. It runs even when the schema failed (so every error comes back at once),
   * hence reads defensively; it may rewrite a field to its canonical form (PIX keys).
   */
  check?: (b: Body) => FieldIssue[];
  /** What a person reading the ticket sees of the message. */
  text: (b: Body) => string;
}

// ---- building blocks -----------------------------------------------------------------------

const Strict = <T extends TProperties>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, description });
const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, description });
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const List = <T extends TSchema>(items: T, minItems: number, maxItems: number, description?: string) =>
  Type.Array(items, { minItems, maxItems, description });
const HttpUrl = (description: string) => Type.String({ maxLength: 2048, pattern: '^https?://[^\\s/?#]+[^\\s]*$', description });

const TicketId = { ticketId: Id('The ticket to send to') };
/** WhatsApp's limits: a body of 1024 characters on button messages, 4096 on lists; footers of 60. */
const Body_ = (maxLength: number) => Strict({ text: Text(maxLength, 'Message text') });
const Footer = Opt(Strict({ text: Text(60, 'Footer text') }));
const Number_ = Type.String({ minLength: 8, maxLength: 20, pattern: '^\\+?[0-9][0-9 ().-]*$', description: 'E.164, with or without +' });

/** A list row as WhatsApp draws it: id ≤ 200, title ≤ 24, description ≤ 72. */
const Row = Strict({ id: Text(200, 'Comes back when the row is chosen'), title: Text(24), description: Opt(Text(72)) });
/** WhatsApp lists: up to 10 sections and 10 rows in all (checked in `listRules`). */
const Sections = List(Strict({ title: Text(24), rows: List(Row, 1, 10) }), 1, 10);

const Pix = {
  pixType: StringEnum(PIX_TYPES, { description: 'EVP (random key), CPF, CNPJ, EMAIL or PHONE' }),
  pixKey: Text(100, 'The key, checked against pixType; CPF/CNPJ masks and phone separators are accepted'),
  pixName: Text(100, 'Beneficiary name'),
};

/** Messenger/Instagram button: postback (payload ≤ 1000) or web_url; title ≤ 20. */
const TemplateButton = Strict({
  type: StringEnum(['postback', 'web_url']),
  title: Text(20),
  payload: Opt(Text(1000, 'Required for postback')),
  url: Opt(HttpUrl('Required for web_url')),
});
const TemplateButtons = (minItems: number) => List(TemplateButton, minItems, 3, 'At most 3');

// ---- cross-field rules ---------------------------------------------------------------------

const isText = (v: unknown): v is string => typeof v === 'string';
const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Body => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Body) : {});

/** One issue per value repeating an earlier one (compared trimmed and case-insensitively). */
function unique(values: Array<{ field: string; value: unknown }>, what: string): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const { field, value } of values) {
    if (!isText(value)) continue;
    const key = value.trim().toLowerCase();
    if (seen.has(key)) issues.push({ field, message: `repeats another ${what}; each must be unique` });
    seen.add(key);
  }
  return issues;
}

/** Rows of a WhatsApp list: at most 10 in all sections together, ids unique across them. */
function listRules(sections: unknown, path: string): FieldIssue[] {
  const rows = arr(sections).flatMap((s, i) => arr(obj(s).rows).map((row, j) => ({ row: obj(row), field: `${path}[${i}].rows[${j}]` })));
  const issues: FieldIssue[] = rows.length > 10 ? [{ field: path, message: `have ${rows.length} rows; WhatsApp takes at most 10 in all sections` }] : [];
  return [...issues, ...unique(rows.map(({ row, field }) => ({ field: `${field}.id`, value: row.id })), 'row id')];
}

/** Checks the key against its type and hands on its canonical spelling (DICT's). */
function pixRules(b: Body): FieldIssue[] {
  if (!isText(b.pixKey) || !(PIX_TYPES as readonly string[]).includes(b.pixType)) return [];
  const res = normalizePixKey(b.pixType as PixType, b.pixKey);
  if ('error' in res) return [{ field: 'pixKey', message: `${res.error} (pixType ${b.pixType})` }];
  b.pixKey = res.key;
  return [];
}

/** A poll's options are distinct, and a contact cannot be asked to pick more options than exist. */
function pollRules(options: unknown, field: string, selectableCount: unknown): FieldIssue[] {
  const list = arr(options);
  const issues = unique(list.map((value, i) => ({ field: `${field}[${i}]`, value })), 'option');
  if (typeof selectableCount === 'number' && selectableCount > list.length) {
    issues.push({ field: 'selectableCount', message: `must be at most the number of ${field} (${list.length}); 0 lets the contact pick any number` });
  }
  return issues;
}

/** A button's target: payload for postback, url for web_url, and not the other one. */
function templateButtonRules(buttons: unknown, path: string): FieldIssue[] {
  return arr(buttons).flatMap((raw, i) => {
    const b = obj(raw);
    const at = `${path}[${i}]`;
    const needs = b.type === 'postback' ? 'payload' : b.type === 'web_url' ? 'url' : undefined;
    if (!needs) return [];
    const other = needs === 'payload' ? 'url' : 'payload';
    return [
      ...(b[needs] === undefined ? [{ field: `${at}.${needs}`, message: `is required for ${b.type} buttons` }] : []),
      ...(b[other] !== undefined ? [{ field: `${at}.${other}`, message: `is not used by ${b.type} buttons; leave it out` }] : []),
    ];
  });
}

/** Dollars and cents: an amount with at most two decimals. */
const hasCents = (n: unknown) => typeof n === 'number' && Math.abs(Math.round(n * 100) - n * 100) < 1e-6;

// ---- history texts -------------------------------------------------------------------------

const lines = (...parts: unknown[]) => parts.filter((p): p is string => isText(p) && p !== '').join('\n');
const buttonsLine = (labels: unknown[]) => labels.filter(isText).map((l) => `[${l}]`).join(' ');
/** uazapi choices carry a label before `|` ("Yes|yes-id", "Site|https://…"). */
const labelOf = (choice: unknown) => (isText(choice) ? choice.split('|')[0] : '');
const rowTitles = (sections: unknown) => arr(sections).flatMap((s) => arr(obj(s).rows).map((r) => `- ${obj(r).title}`));

// ---- engine_a and engine_b (WhatsApp native flow; Evolution for engine_b) ------------------

function whatsappEngineDefs(route: 'engine_a' | 'engine_b'): InteractiveDef[] {
  const path = (type: string) => `/sendInteractive/${route}/${type}`;
  const defs: InteractiveDef[] = [
    {
      route,
      type: 'quickReply',
      path: path('quickReply'),
      summary: 'Reply buttons (at most 3)',
      schema: Strict({
        ...TicketId,
        body: Body_(1024),
        footer: Footer,
        buttons: List(Strict({ display_text: Text(20, 'Button label'), id: Text(256, 'Comes back when tapped') }), 1, 3, 'At most 3: WhatsApp shows no more'),
      }),
      check: (b) => [
        ...unique(arr(b.buttons).map((x, i) => ({ field: `buttons[${i}].id`, value: obj(x).id })), 'button id'),
        ...unique(arr(b.buttons).map((x, i) => ({ field: `buttons[${i}].display_text`, value: obj(x).display_text })), 'button label'),
      ],
      text: (b) => lines(b.body.text, b.footer?.text, buttonsLine(b.buttons.map((x: Body) => x.display_text))),
    },
    {
      route,
      type: 'singleSelect',
      path: path('singleSelect'),
      summary: 'A list of rows in sections, opened by a button',
      schema: Strict({
        ...TicketId,
        body: Body_(4096),
        footer: Footer,
        list: Strict({ title: Text(20, 'Label of the button that opens the list'), sections: Sections }),
      }),
      check: (b) => listRules(obj(b.list).sections, 'list.sections'),
      text: (b) => lines(b.body.text, b.footer?.text, `${b.list.title}:`, ...rowTitles(b.list.sections)),
    },
    {
      route,
      type: 'pixButton',
      path: path('pixButton'),
      summary: 'A PIX key the contact copies to pay',
      schema: Strict({ ...TicketId, ...Pix, bodyText: Opt(Text(1024)) }),
      check: pixRules,
      text: (b) => lines(b.bodyText, `PIX ${b.pixType} ${b.pixKey} (${b.pixName})`),
    },
    {
      route,
      type: 'ctaCopy',
      path: path('ctaCopy'),
      summary: 'A button that copies a code',
      schema: Strict({ ...TicketId, body: Body_(1024), footer: Footer, displayText: Text(20), copyCode: Text(512, "Copied to the contact's clipboard") }),
      text: (b) => lines(b.body.text, b.footer?.text, `[${b.displayText}: ${b.copyCode}]`),
    },
    {
      route,
      type: 'ctaUrl',
      path: path('ctaUrl'),
      summary: 'A button that opens a link',
      schema: Strict({ ...TicketId, body: Body_(1024), footer: Footer, displayText: Text(20), url: HttpUrl('http or https link') }),
      text: (b) => lines(b.body.text, b.footer?.text, `[${b.displayText}: ${b.url}]`),
    },
    {
      route,
      type: 'ctaCall',
      path: path('ctaCall'),
      summary: 'A button that calls a number',
      schema: Strict({
        ...TicketId,
        body: Body_(1024),
        footer: Footer,
        displayText: Text(20),
        phoneNumber: Type.String({ pattern: '^\\+[1-9][0-9]{7,14}$', maxLength: 16, description: 'E.164 starting with +, digits only: +5511987654321' }),
      }),
      text: (b) => lines(b.body.text, b.footer?.text, `[${b.displayText}: ${b.phoneNumber}]`),
    },
  ];
  if (route === 'engine_b') {
    defs.push({
      route,
      type: 'poll',
      path: path('poll'),
      summary: 'A poll (2 to 10 options)',
      schema: Strict({
        ...TicketId,
        name: Text(255, 'The question'),
        options: List(Text(100), 2, 10, "2 to 10 distinct options (Evolution API's range)"),
        selectableCount: Opt(Type.Integer({ minimum: 0, maximum: 10, description: '1: single choice; 0: any number' })),
      }),
      check: (b) => pollRules(b.options, 'options', b.selectableCount),
      text: (b) => lines(`Poll: ${b.name}`, ...b.options.map((o: string) => `( ) ${o}`)),
    });
  }
  return defs;
}

// ---- engine_c (uazapi) ---------------------------------------------------------------------

/** A list choice that opens a section: "[Section title]". */
const isSectionChoice = (choice: string) => /^\[.*\]$/.test(choice.trim());

function engineCListRules(choices: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let rows = 0;
  arr(choices).forEach((choice, i) => {
    if (!isText(choice)) return;
    const field = `choices[${i}]`;
    if (isSectionChoice(choice)) {
      if (choice.trim().length - 2 > 24) issues.push({ field, message: 'section titles are at most 24 characters' });
      return;
    }
    rows++;
    const [title = '', , description = ''] = choice.split('|');
    if (!title.trim() || title.length > 24) issues.push({ field, message: 'row titles (before the first |) are 1 to 24 characters' });
    if (description.length > 72) issues.push({ field, message: 'row descriptions (after the second |) are at most 72 characters' });
  });
  if (!rows) issues.push({ field: 'choices', message: 'need at least one row ("title|id|description")' });
  if (rows > 10) issues.push({ field: 'choices', message: `have ${rows} rows; WhatsApp takes at most 10` });
  return issues;
}

function engineCButtonRules(choices: unknown): FieldIssue[] {
  return arr(choices).flatMap((choice, i) => {
    const label = labelOf(choice);
    return isText(choice) && (!label.trim() || label.length > 20)
      ? [{ field: `choices[${i}]`, message: 'button labels (before the first |) are 1 to 20 characters' }]
      : [];
  });
}

/** Carousel buttons: REPLY may carry the `id` that comes back when tapped; URL needs `url`. */
function carouselRules(cards: unknown): FieldIssue[] {
  return arr(cards).flatMap((card, c) =>
    arr(obj(card).buttons).flatMap((raw, i) => {
      const b = obj(raw);
      const at = `carousel[${c}].buttons[${i}]`;
      if (b.type === 'URL') {
        return [
          ...(b.url === undefined ? [{ field: `${at}.url`, message: 'is required for URL buttons' }] : []),
          ...(b.id !== undefined ? [{ field: `${at}.id`, message: 'is for REPLY buttons; a URL button opens its url' }] : []),
        ];
      }
      return b.type === 'REPLY' && b.url !== undefined ? [{ field: `${at}.url`, message: 'is for URL buttons; leave it out' }] : [];
    }),
  );
}

const engineC = (type: string) => `/sendInteractive/engine_c/${type}`;

const ENGINE_C: InteractiveDef[] = [
  {
    route: 'engine_c',
    type: 'button',
    path: engineC('button'),
    summary: 'Buttons, one per choice (at most 3)',
    schema: Strict({
      ...TicketId,
      text: Text(1024),
      choices: List(Text(2048, '"Label|id", "Label|copy:CODE", "Label|call:+55…" or "Label|https://…"'), 1, 3, 'One button each, at most 3'),
      footerText: Opt(Text(60)),
      imageButton: Opt(HttpUrl('Image shown above the text')),
    }),
    check: (b) => [...engineCButtonRules(b.choices), ...unique(arr(b.choices).map((v, i) => ({ field: `choices[${i}]`, value: labelOf(v) })), 'button label')],
    text: (b) => lines(b.text, b.footerText, buttonsLine(b.choices.map(labelOf))),
  },
  {
    route: 'engine_c',
    type: 'list',
    path: engineC('list'),
    summary: 'A list: "[Section]" choices open sections, "title|id|description" choices are rows (at most 10)',
    schema: Strict({
      ...TicketId,
      text: Text(4096),
      choices: List(Text(400), 1, 20, 'Rows "title|id|description" (at most 10) and "[Section]" headers'),
      listButton: Text(20, 'Label of the button that opens the list'),
      footerText: Opt(Text(60)),
    }),
    check: (b) => engineCListRules(b.choices),
    text: (b) => lines(b.text, b.footerText, `${b.listButton}:`, ...b.choices.filter((c: string) => !isSectionChoice(c)).map((c: string) => `- ${labelOf(c)}`)),
  },
  {
    route: 'engine_c',
    type: 'poll',
    path: engineC('poll'),
    summary: 'A poll (2 to 12 options)',
    schema: Strict({
      ...TicketId,
      text: Text(255, 'The question'),
      choices: List(Text(100), 2, 12, "2 to 12 distinct options (WhatsApp's range)"),
      selectableCount: Opt(Type.Integer({ minimum: 0, maximum: 12, description: '1: single choice; 0: any number' })),
    }),
    check: (b) => pollRules(b.choices, 'choices', b.selectableCount),
    text: (b) => lines(`Poll: ${b.text}`, ...b.choices.map((o: string) => `( ) ${o}`)),
  },
  {
    route: 'engine_c',
    type: 'carousel',
    path: engineC('carousel'),
    summary: 'Cards with an image, a text and buttons (at most 10 cards)',
    schema: Strict({
      ...TicketId,
      text: Opt(Text(1024)),
      carousel: List(
        Strict({
          text: Text(1024),
          image: HttpUrl('Card image URL'),
          buttons: List(
            Strict({
              text: Text(20),
              type: StringEnum(['REPLY', 'URL']),
              id: Opt(Text(256, 'REPLY: comes back when tapped (default: the text)')),
              url: Opt(HttpUrl('URL: the link the button opens (required)')),
            }),
            1,
            3,
          ),
        }),
        1,
        10,
      ),
    }),
    check: (b) => carouselRules(b.carousel),
    text: (b) => lines(b.text, ...b.carousel.map((card: Body) => `${card.text} ${buttonsLine(card.buttons.map((x: Body) => x.text))}`)),
  },
  {
    route: 'engine_c',
    type: 'pixButton',
    path: engineC('pixButton'),
    summary: 'A PIX key the contact copies to pay',
    schema: Strict({ ...TicketId, ...Pix }),
    check: pixRules,
    text: (b) => `PIX ${b.pixType} ${b.pixKey} (${b.pixName})`,
  },
  {
    route: 'engine_c',
    type: 'locationButton',
    path: engineC('locationButton'),
    summary: 'Asks the contact to share their location',
    schema: Strict({ ...TicketId, text: Text(1024) }),
    text: (b) => lines(b.text, '[Send location]'),
  },
  {
    route: 'engine_c',
    type: 'requestPayment',
    path: engineC('requestPayment'),
    summary: 'A payment request ("review and pay") with a PIX key',
    schema: Strict({
      ...TicketId,
      amount: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000_000, description: 'In BRL, at most two decimals' }),
      title: Text(60),
      text: Opt(Text(1024)),
      footer: Opt(Text(60)),
      itemName: Opt(Text(60)),
      invoiceNumber: Opt(Text(35, "WhatsApp's order reference: at most 35 characters")),
      ...Pix,
    }),
    check: (b) => [...(hasCents(b.amount) || typeof b.amount !== 'number' ? [] : [{ field: 'amount', message: 'has at most two decimals' }]), ...pixRules(b)],
    text: (b) => lines(`${b.title}: BRL ${Number(b.amount).toFixed(2)}`, b.itemName, b.text, `PIX ${b.pixType} ${b.pixKey} (${b.pixName})`),
  },
];

// ---- official channel (waba) ---------------------------------------------------------------

const WABA: InteractiveDef[] = [
  {
    route: 'waba',
    type: 'button',
    path: '/sendButtonWABA',
    summary: 'Up to 3 reply buttons to a number (official channel)',
    schema: Strict({
      number: Number_,
      message: Text(1024),
      button1: Text(20, 'Button title (also the id that comes back)'),
      button2: Text(20),
      button3: Opt(Text(20)),
      ticketId: Opt(Id("Pins the message to this open ticket of the contact on the integration's channel")),
    }),
    check: (b) => unique(['button1', 'button2', 'button3'].map((field) => ({ field, value: b[field] })), 'button title'),
    text: (b) => lines(b.message, buttonsLine([b.button1, b.button2, b.button3])),
  },
  {
    route: 'waba',
    type: 'list',
    path: '/sendListWABA',
    summary: 'A list of up to 10 rows to a number (official channel)',
    schema: Strict({
      number: Number_,
      header: Opt(Text(60)),
      body: Text(4096),
      footer: Opt(Text(60)),
      button_text: Text(20, 'Label of the button that opens the list'),
      sections: Sections,
      ticketId: Opt(Id("Pins the message to this open ticket of the contact on the integration's channel")),
    }),
    check: (b) => listRules(b.sections, 'sections'),
    text: (b) => lines(b.header, b.body, b.footer, `${b.button_text}:`, ...rowTitles(b.sections)),
  },
];

// ---- social_a (Instagram) and social_b (Messenger) -----------------------------------------

const social = (route: 'social_a' | 'social_b', type: string) => `/sendInteractive/${route}/${type}`;

function socialDefs(route: 'social_a' | 'social_b'): InteractiveDef[] {
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
            return (['title', 'payload'] as const).filter((f) => q[f] === undefined).map((f) => ({ field: `${at}.${f}`, message: 'is required for text quick replies' }));
          }
          if (q.content_type === 'user_phone_number') {
            return (['title', 'payload'] as const)
              .filter((f) => q[f] !== undefined)
              .map((f) => ({ field: `${at}.${f}`, message: "is not used by user_phone_number (the contact's own number is offered); leave it out" }));
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

const SOCIAL_B_ONLY: InteractiveDef[] = [
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
    text: (b) => lines(`Receipt ${b.receipt.order_number} for ${b.receipt.recipient_name}: ${b.receipt.summary.total_cost} ${b.receipt.currency}`, ...b.receipt.elements.map((e: Body) => `- ${e.quantity} × ${e.title} ${e.price}`)),
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
      ...(['title', 'subtitle', 'button_title'] as const).filter((f) => hasUrl(b[f])).map((field) => ({ field, message: 'may not contain a URL' })),
      ...arr(b.feedback_screens).flatMap((screen, s) =>
        arr(obj(screen).questions).flatMap((raw, i) => {
          const q = obj(raw);
          const allowed = FEEDBACK_SCORE_OPTIONS[q.type as string];
          return allowed && q.score_option !== undefined && !allowed.includes(q.score_option)
            ? [{ field: `feedback_screens[${s}].questions[${i}].score_option`, message: `must be ${allowed.join(' or ') || 'left out'} for ${q.type}` }]
            : [];
        }),
      ),
    ],
    text: (b) => lines(b.title, b.subtitle),
  },
];

export const INTERACTIVE: InteractiveDef[] = [
  ...whatsappEngineDefs('engine_a'),
  ...whatsappEngineDefs('engine_b'),
  ...ENGINE_C,
  ...WABA,
  ...socialDefs('social_a'),
  ...socialDefs('social_b'),
  ...SOCIAL_B_ONLY,
];
