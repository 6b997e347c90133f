import Type from 'typebox';
import { Id } from '../common';
import { RouteVia } from '../message.schemas';
import { type InteractiveDef, Strict, Text, Opt, Number_, Sections, unique, listRules, lines, buttonsLine, rowTitles } from './shared';

// ---- official channel (waba) ---------------------------------------------------------------

/** A fourth button and beyond: the seed allows at most 3. */
const EXTRA_BUTTON = '^button([4-9]|[1-9][0-9]+)$';

export const WABA: InteractiveDef[] = [
  {
    route: 'waba',
    type: 'button',
    path: '/sendButtonWABA',
    summary: 'Up to 3 reply buttons to a number (official channel)',
    schema: Type.Object(
      {
        number: Number_,
        message: Text(1024),
        button1: Text(20, 'Button title (also the id that comes back)'),
        button2: Text(20),
        button3: Opt(Text(20)),
        ticketId: Opt(Id("Pins the message to this open ticket of the contact on the integration's channel")),
        routeVia: RouteVia,
      },
      // button4, button5…: kept by the schema so that the check below refuses them by name.
      { additionalProperties: false, patternProperties: { [EXTRA_BUTTON]: {} } },
    ),
    check: (b) => [
      ...unique(
        ['button1', 'button2', 'button3'].map((field) => ({ field, value: b[field] })),
        'button title',
      ),
      ...Object.keys(b)
        .filter((k) => new RegExp(EXTRA_BUTTON).test(k))
        .map((field) => ({ field, message: 'at most 3 buttons (button1 to button3)' })),
    ],
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
      routeVia: RouteVia,
    }),
    check: (b) => listRules(b.sections, 'sections'),
    text: (b) => lines(b.header, b.body, b.footer, `${b.button_text}:`, ...rowTitles(b.sections)),
  },
];
