import { obj, type FieldIssue } from '@convo/kit';
import Type, { type TObject, type TProperties, type TSchema } from 'typebox';
import { normalizePixKey, PIX_TYPES, type PixType } from '../../validation/pix';
import { Id, StringEnum, WabaContactId } from '../common';

/** What the interactive routes share: the definition's shape, schema building blocks, cross-field rules, history texts. */

export type InteractiveRoute = 'engine_a' | 'engine_b' | 'engine_c' | 'waba' | 'social_a' | 'social_b';

/** A body as a rule or the history text sees it (a rule may see one that failed other keywords). */
export type Body = Record<string, any>;

export interface InteractiveDef {
  route: InteractiveRoute;
  /** The type as messaging and the drivers name it ("quickReply"; "button"/"list" for waba). */
  type: string;
  /** The REST path under {root}. */
  path: string;
  summary: string;
  schema: TObject;
  /**
   * Cross-field rules: part of the route's schema as its `x-rules` keyword (validation/rules.ts),
   * so they run in the gateway's one validator; they read defensively and may rewrite a field to
   * its canonical form (PIX keys).
   */
  check?: (b: Body) => FieldIssue[];
  /** What a person reading the ticket sees of the message. */
  text: (b: Body) => string;
}

// ---- building blocks -----------------------------------------------------------------------

export const Strict = <T extends TProperties>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, description });
export const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, description });
export const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
export const List = <T extends TSchema>(items: T, minItems: number, maxItems: number, description?: string) =>
  Type.Array(items, { minItems, maxItems, description });
export const HttpUrl = (description: string) => Type.String({ maxLength: 2048, pattern: '^https?://[^\\s/?#]+[^\\s]*$', description });

export const TicketId = { ticketId: Id('The ticket to send to') };
/** WhatsApp's limits: a body of 1024 characters on button messages, 4096 on lists; footers of 60. */
export const Body_ = (maxLength: number) => Strict({ text: Text(maxLength, 'Message text') });
export const Footer = Opt(Strict({ text: Text(60, 'Footer text') }));
/** The WABA routes' contact: a phone (WhatsApp has no platform user ids) or a BSUID. */
export const Number_ = WabaContactId("The contact on the integration's channel");

/** A list row as WhatsApp draws it: id ≤ 200, title ≤ 24, description ≤ 72. */
export const Row = Strict({ id: Text(200, 'Comes back when the row is chosen'), title: Text(24), description: Opt(Text(72)) });
/** WhatsApp lists: up to 10 sections and 10 rows in all (checked in `listRules`). */
export const Sections = List(Strict({ title: Text(24), rows: List(Row, 1, 10) }), 1, 10);

export const Pix = {
  pixType: StringEnum(PIX_TYPES, { description: 'EVP (random key), CPF, CNPJ, EMAIL or PHONE' }),
  pixKey: Text(100, 'The key, checked against pixType; CPF/CNPJ masks and phone separators are accepted'),
  pixName: Text(100, 'Beneficiary name'),
};

/** Messenger/Instagram button: postback (payload ≤ 1000) or web_url; title ≤ 20. */
export const TemplateButton = Strict({
  type: StringEnum(['postback', 'web_url']),
  title: Text(20),
  payload: Opt(Text(1000, 'Required for postback')),
  url: Opt(HttpUrl('Required for web_url')),
});
export const TemplateButtons = (minItems: number) => List(TemplateButton, minItems, 3, 'At most 3');

// ---- cross-field rules ---------------------------------------------------------------------

export const isText = (v: unknown): v is string => typeof v === 'string';
export const arr = (v: unknown): any[] => (Array.isArray(v) ? v : []);

/** One issue per value repeating an earlier one (compared trimmed and case-insensitively). */
export function unique(values: Array<{ field: string; value: unknown }>, what: string): FieldIssue[] {
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
export function listRules(sections: unknown, path: string): FieldIssue[] {
  const rows = arr(sections).flatMap((s, i) => arr(obj(s).rows).map((row, j) => ({ row: obj(row), field: `${path}[${i}].rows[${j}]` })));
  const issues: FieldIssue[] =
    rows.length > 10 ? [{ field: path, message: `have ${rows.length} rows; WhatsApp takes at most 10 in all sections` }] : [];
  return [
    ...issues,
    ...unique(
      rows.map(({ row, field }) => ({ field: `${field}.id`, value: row.id })),
      'row id',
    ),
  ];
}

/** Checks the key against its type and hands on its canonical spelling (DICT's). */
export function pixRules(b: Body): FieldIssue[] {
  if (!isText(b.pixKey) || !(PIX_TYPES as readonly string[]).includes(b.pixType)) return [];
  const res = normalizePixKey(b.pixType as PixType, b.pixKey);
  if ('error' in res) return [{ field: 'pixKey', message: `${res.error} (pixType ${b.pixType})` }];
  b.pixKey = res.key;
  return [];
}

/** A poll's options are distinct, and a contact cannot be asked to pick more options than exist. */
export function pollRules(options: unknown, field: string, selectableCount: unknown): FieldIssue[] {
  const list = arr(options);
  const issues = unique(
    list.map((value, i) => ({ field: `${field}[${i}]`, value })),
    'option',
  );
  if (typeof selectableCount === 'number' && selectableCount > list.length) {
    issues.push({
      field: 'selectableCount',
      message: `must be at most the number of ${field} (${list.length}); 0 lets the contact pick any number`,
    });
  }
  return issues;
}

/** A button's target: payload for postback, url for web_url, and not the other one. */
export function templateButtonRules(buttons: unknown, path: string): FieldIssue[] {
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
export const hasCents = (n: unknown) => typeof n === 'number' && Math.abs(Math.round(n * 100) - n * 100) < 1e-6;

// ---- history texts -------------------------------------------------------------------------

export const lines = (...parts: unknown[]) => parts.filter((p): p is string => isText(p) && p !== '').join('\n');
export const buttonsLine = (labels: unknown[]) =>
  labels
    .filter(isText)
    .map((l) => `[${l}]`)
    .join(' ');
/** uazapi choices carry a label before `|` ("Yes|yes-id", "Site|https://…"). */
export const labelOf = (choice: unknown) => (isText(choice) ? choice.split('|')[0] : '');
export const rowTitles = (sections: unknown) => arr(sections).flatMap((s) => arr(obj(s).rows).map((r) => `- ${obj(r).title}`));
