import type { FieldIssue } from '@convo/kit';

/**
 * Cross-field rules as part of a route's schema. What JSON Schema expresses badly (one field
 * required unless another is sent, uniqueness of labels, totals across sections, PIX keys checked
 * against their type) is a named rule, and the schema names it with the keyword `x-rules`; the
 * gateway's one validator (compiler.ts) runs it with the rest of the schema, so its errors come
 * back in the same `details`, in the same envelope, from the same place. In the OpenAPI document
 * the keyword is an extension naming the rule.
 *
 * A rule receives the object its schema validates (after defaults and coercion). Under the
 * every-error validator it also runs when other keywords failed, so it reads defensively. It may
 * rewrite a field to its canonical form (PIX keys). Its fields are relative to that object, in
 * the notation of `details` (`buttons[0].id`).
 */
export const RULES_KEYWORD = 'x-rules';

export type Rule = (data: Record<string, any>) => FieldIssue[];

const rules = new Map<string, Rule>();

/** Registers `rule` under `name` and returns the schema keyword that names it. */
export function rule(name: string, check: Rule): { [RULES_KEYWORD]: string } {
  const known = rules.get(name);
  if (known && known !== check) throw new Error(`Two rules named ${name}`);
  rules.set(name, check);
  return { [RULES_KEYWORD]: name };
}

/** `buttons[0].id` → `/buttons/0/id` (JSON Pointer, RFC 6901). */
export const pointerOf = (field: string): string =>
  field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean)
    .map((part) => `/${part.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');

type RuleError = { instancePath: string; schemaPath: string; keyword: string; params: Record<string, unknown>; message: string };
type CompiledRule = ((data: unknown, cxt?: { instancePath: string }) => boolean) & { errors?: RuleError[] };

/** Ajv plugin (Ajv 8's addKeyword): the `x-rules` keyword. An unknown rule fails the route's compilation. */
export function rulesKeyword<A extends { addKeyword(definition: object): unknown }>(ajv: A): A {
  const compile = (name: string): CompiledRule => {
    const check = rules.get(name);
    if (!check) throw new Error(`Unknown validation rule ${name}`);
    const validate: CompiledRule = (data, cxt) => {
      const issues = data && typeof data === 'object' && !Array.isArray(data) ? check(data as Record<string, unknown>) : [];
      validate.errors = issues.map((issue) => ({
        instancePath: `${cxt?.instancePath ?? ''}${pointerOf(issue.field)}`,
        schemaPath: `#/${RULES_KEYWORD}`,
        keyword: RULES_KEYWORD,
        params: { rule: name },
        message: issue.message,
      }));
      return issues.length === 0;
    };
    return validate;
  };
  ajv.addKeyword({ keyword: RULES_KEYWORD, schemaType: 'string', errors: true, compile });
  return ajv;
}
