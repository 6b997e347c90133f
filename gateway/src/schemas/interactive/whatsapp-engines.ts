import { obj } from '@convo/kit';
import Type from 'typebox';
import type { FieldIssue } from '@convo/kit';
import { StringEnum } from '../common';
import {
  type Body,
  type InteractiveDef,
  Strict,
  Text,
  Opt,
  List,
  HttpUrl,
  TicketId,
  Body_,
  Footer,
  Sections,
  Pix,
  isText,
  arr,
  unique,
  listRules,
  pixRules,
  pollRules,
  hasCents,
  lines,
  buttonsLine,
  labelOf,
  rowTitles,
} from './shared';

// ---- engine_a and engine_b (WhatsApp native flow; Evolution for engine_b) ------------------

export function whatsappEngineDefs(route: 'engine_a' | 'engine_b'): InteractiveDef[] {
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
        buttons: List(
          Strict({ display_text: Text(20, 'Button label'), id: Text(256, 'Comes back when tapped') }),
          1,
          3,
          'At most 3: WhatsApp shows no more',
        ),
      }),
      check: (b) => [
        ...unique(
          arr(b.buttons).map((x, i) => ({ field: `buttons[${i}].id`, value: obj(x).id })),
          'button id',
        ),
        ...unique(
          arr(b.buttons).map((x, i) => ({ field: `buttons[${i}].display_text`, value: obj(x).display_text })),
          'button label',
        ),
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
      schema: Strict({
        ...TicketId,
        body: Body_(1024),
        footer: Footer,
        displayText: Text(20),
        copyCode: Text(512, "Copied to the contact's clipboard"),
      }),
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
        phoneNumber: Type.String({
          pattern: '^\\+[1-9][0-9]{7,14}$',
          maxLength: 16,
          description: 'E.164 starting with +, digits only: +5511987654321',
        }),
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

export const ENGINE_C: InteractiveDef[] = [
  {
    route: 'engine_c',
    type: 'button',
    path: engineC('button'),
    summary: 'Buttons, one per choice (at most 3)',
    schema: Strict({
      ...TicketId,
      text: Text(1024),
      choices: List(
        Text(2048, '"Label|id", "Label|copy:CODE", "Label|call:+55…" or "Label|https://…"'),
        1,
        3,
        'One button each, at most 3',
      ),
      footerText: Opt(Text(60)),
      imageButton: Opt(HttpUrl('Image shown above the text')),
    }),
    check: (b) => [
      ...engineCButtonRules(b.choices),
      ...unique(
        arr(b.choices).map((v, i) => ({ field: `choices[${i}]`, value: labelOf(v) })),
        'button label',
      ),
    ],
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
    text: (b) =>
      lines(
        b.text,
        b.footerText,
        `${b.listButton}:`,
        ...b.choices.filter((c: string) => !isSectionChoice(c)).map((c: string) => `- ${labelOf(c)}`),
      ),
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
    summary: 'Cards with an image, a text and buttons (at most 10 cards), below the message text',
    schema: Strict({
      ...TicketId,
      // uazapi's /send/carousel requires the text above the cards: refused here, not at delivery.
      text: Text(1024),
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
    check: (b) => [
      ...(hasCents(b.amount) || typeof b.amount !== 'number' ? [] : [{ field: 'amount', message: 'has at most two decimals' }]),
      ...pixRules(b),
    ],
    text: (b) => lines(`${b.title}: BRL ${Number(b.amount).toFixed(2)}`, b.itemName, b.text, `PIX ${b.pixType} ${b.pixKey} (${b.pixName})`),
  },
];
