import { conflict, contactIdentity, Issues, validation, type proto } from '@convo/kit';

type Template = proto.channelEngines.Template__Output;

/** A component of a send as the Cloud API takes it: `{type, sub_type?, index?, parameters?}`. */
interface SendComponent {
  type?: unknown;
  sub_type?: unknown;
  index?: unknown;
  parameters?: unknown;
}

/** The template message a driver sends: the Cloud API's `template` object. */
export interface TemplateMessage {
  name: string;
  language: { code: string };
  components?: SendComponent[];
}

/** The catalog's entry of a name and language; null when the catalog has none. */
export const findTemplate = (catalog: Template[], name: string, language: string): Template | null =>
  catalog.find((t) => t.name === name && t.language === language) ?? null;

/** A template the catalog lacks (400) or has but not APPROVED (409). */
export function requireApproved(template: Template | null, name: string, language: string): Template {
  if (!template) {
    throw validation(
      `The channel has no template ${name} in language ${language} (GET {root}/templates lists them)`,
      [{ field: 'template.name', message: `no template ${name} in ${language}` }],
      'ERR_TEMPLATE_NOT_FOUND',
    );
  }
  if (template.status !== 'APPROVED') {
    throw conflict(
      'ERR_TEMPLATE_NOT_APPROVED',
      `Template ${name} (${language}) is ${template.status || 'not approved'}; Meta sends only APPROVED templates`,
    );
  }
  return template;
}

/** `header`, `body`, `button[<index>]`: how a component is named in the catalog and in errors. */
const keyOf = (type: string, index: number) => (type === 'button' ? `button[${index}]` : type);

/**
 * The send's components against the template's: each component that takes parameters gets exactly
 * that many, and none gets parameters its template has no place for (a quick-reply button may
 * carry its payload). ERR_VALIDATION names the component. Answers the components as Meta takes them.
 */
export function checkParameters(template: Template, given: SendComponent[]): SendComponent[] {
  const wanted = new Map(template.components.map((c) => [keyOf(c.type, c.index), c]));
  const counts = new Map<string, number>();
  const issues = new Issues();
  given.forEach((c, i) => {
    const type = typeof c.type === 'string' ? c.type.toLowerCase() : '';
    const index = Number(c.index ?? 0);
    if (!['header', 'body', 'button'].includes(type) || !Number.isInteger(index) || index < 0) {
      issues.add(`components[${i}]`, 'must be a header, body or button component (a button with its index)');
      return;
    }
    const key = keyOf(type, index);
    if (counts.has(key)) issues.add(`components[${i}]`, `${key} is given twice`);
    const parameters = Array.isArray(c.parameters) ? c.parameters.length : 0;
    counts.set(key, parameters);
    const expected = wanted.get(key);
    const quickReply = expected?.format === 'QUICK_REPLY' && parameters <= 1;
    if (!expected && parameters > 0) issues.add(`components.${key}`, `template ${template.name} has no ${key} that takes parameters`);
    else if (expected && expected.parameters !== parameters && !quickReply) {
      issues.add(`components.${key}`, `template ${template.name}'s ${key} takes ${expected.parameters} parameter(s); ${parameters} given`);
    }
  });
  for (const [key, c] of wanted) {
    if (c.parameters > 0 && !counts.has(key))
      issues.add(`components.${key}`, `template ${template.name}'s ${key} takes ${c.parameters} parameter(s); none given`);
  }
  issues.throwIfAny(`The parameters do not match template ${template.name} (${template.language})`);
  return given.map((c) => ({ ...c, type: String(c.type).toLowerCase() }));
}

/**
 * What a person reading the ticket sees of a template: its body with the parameters in place
 * (`{{1}}` by position, `{{name}}` by parameter_name); the template's name when it has no body.
 */
export function renderBody(template: Template, components: SendComponent[]): string {
  if (!template.bodyText) return `[template ${template.name}]`;
  const body = components.find((c) => c.type === 'body');
  const params = (Array.isArray(body?.parameters) ? body.parameters : []) as Array<{ text?: unknown; parameter_name?: unknown }>;
  let position = 0;
  return template.bodyText.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (whole, name: string) => {
    const p = /^\d+$/.test(name) ? params[Number(name) - 1] : (params.find((q) => q.parameter_name === name) ?? params[position]);
    position++;
    return typeof p?.text === 'string' ? p.text : whole;
  });
}

/**
 * Meta's authentication templates (one-tap, zero-tap, copy-code) reach a phone only: sent to a
 * business-scoped user id Meta refuses them (error 131062), so a contact named by its BSUID is
 * refused at acceptance, 409 ERR_PHONE_REQUIRED, with nothing stored.
 */
export function requirePhoneFor(template: Template, contact: string): Template {
  if (template.category.toUpperCase() !== 'AUTHENTICATION' || contactIdentity(contact)?.kind === 'number') return template;
  throw conflict(
    'ERR_PHONE_REQUIRED',
    `Template ${template.name} is an authentication template: Meta sends those to a phone number only, not to a BSUID`,
  );
}
