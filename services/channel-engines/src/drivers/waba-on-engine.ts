import { validation } from '@convo/kit';
import { type Json, optionalText, requiredList, requiredText } from '../json';

/**
 * The engine kinds that carry a waba channel's reply buttons and lists when they are its linked
 * channel in coexistence (messaging's dispatcher diverts `waba/button` and `waba/list` only to
 * these). `whatsapp` and `engine_g` take text and media only: there the official API keeps them.
 */
export const WABA_INTERACTIVE_CARRIERS: readonly string[] = ['engine_a', 'engine_b', 'engine_c'];

/**
 * sendButtonWABA / sendListWABA (the Cloud API's fields) in the linked engine's own dialect, with
 * the same reply ids as the official API gives them (a button's title, a row's id), so the
 * contact's choice comes back alike whichever way the message left. A list's header, which the
 * engines' lists lack, leads the body in bold.
 */
export function wabaOnEngine(kind: string, type: string, json: Json): { type: string; json: Json } {
  if (!WABA_INTERACTIVE_CARRIERS.includes(kind) || (type !== 'button' && type !== 'list')) {
    throw validation(`waba/${type} cannot be sent through ${kind} channels`, [
      { field: 'interactive_type', message: `is not a ${kind} type` },
    ]);
  }
  const uazapi = kind === 'engine_c';
  if (type === 'button') {
    const text = requiredText(json, 'message');
    const titles = [requiredText(json, 'button1'), requiredText(json, 'button2'), optionalText(json, 'button3')].filter(
      (t): t is string => !!t,
    );
    if (uazapi) return { type: 'button', json: { text, choices: titles.map((t) => `${t}|${t}`) } };
    return { type: 'quickReply', json: { body: { text }, buttons: titles.map((t) => ({ display_text: t, id: t })) } };
  }
  const header = optionalText(json, 'header');
  const text = header ? `*${header}*\n${requiredText(json, 'body')}` : requiredText(json, 'body');
  const footer = optionalText(json, 'footer');
  const button = requiredText(json, 'button_text');
  const sections = requiredList(json, 'sections').map((section, s) => ({
    title: optionalText(section, 'title') ?? '',
    rows: requiredList(section, 'rows', `sections[${s}].rows`).map((row, r) => ({
      id: requiredText(row, 'id', `sections[${s}].rows[${r}].id`),
      title: requiredText(row, 'title', `sections[${s}].rows[${r}].title`),
      description: optionalText(row, 'description') ?? '',
    })),
  }));
  if (uazapi) {
    // uazapi's menu strings: "[Section]" opens a section, "title|id|description" is a row.
    const choices = sections.flatMap((s) => [
      ...(s.title ? [`[${s.title}]`] : []),
      ...s.rows.map((r) => [r.title, r.id, r.description].filter(Boolean).join('|')),
    ]);
    return { type: 'list', json: { text, listButton: button, choices, ...(footer && { footerText: footer }) } };
  }
  return { type: 'singleSelect', json: { body: { text }, ...(footer && { footer: { text: footer } }), list: { title: button, sections } } };
}
