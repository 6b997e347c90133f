// DOM helpers of the console: elements built with textContent only (nothing read from the API
// becomes markup).

export type Child = Node | string | number | null | undefined | false;
export function h(tag: string, attrs: Record<string, string | ((e: Event) => void)> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === 'function') el.addEventListener(k, v);
    else el.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'number' ? String(c) : c);
  return el;
}
export const table = (head: string[], rows: Child[][], testId: string) =>
  h(
    'table',
    { 'data-testid': testId },
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
export const link = (href: string, text: string) => h('a', { href }, text);
export const age = (seconds: number | null) =>
  seconds === null ? '–' : seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
export const failure = (err: unknown) => h('p', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err));
