// What every view of the console shares: the session, the GraphQL call, the page's one view at a
// time and its periodic refresh, and how a view shows a failure.

import { failure, h } from './dom.js';

type Vars = Record<string, unknown>;
export interface Session {
  token: string;
  /** Set for a tenant administrator: the one tenant the session reaches. */
  tenantId?: number;
  label: string;
}

const SESSION_KEY = 'convo.console.session';
export const REFRESH_MS = 3_000;

export const app = document.getElementById('app')!;
let session: Session | undefined = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') ?? undefined;
/** The periodic refresh of the current view, stopped when the view changes. */
let timer: ReturnType<typeof setInterval> | undefined;
/** Counts views shown: a view still loading when another was opened must not start its refresh. */
let viewNumber = 0;

// ---- the API --------------------------------------------------------------------------------

export async function gql<T>(query: string, variables: Vars = {}): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${session?.token ?? ''}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => ({}));
  if (res.status === 401) signOut();
  const error = body.errors?.[0] ?? (res.ok ? undefined : body);
  if (error) throw new Error(`${error.extensions?.code ?? error.error ?? res.status}: ${error.message}`);
  return body.data as T;
}

export async function login(email: string, password: string): Promise<Session> {
  const res = await fetch('/graphql/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return { token: body.data.token, tenantId: body.data.tenantId, label: email };
}

export function show(...nodes: Node[]) {
  app.replaceChildren(...nodes);
}

/** The session the console calls the API with, if signed in. */
export const currentSession = (): Session | undefined => session;

/** Keeps `s` as the session (across reloads of the tab); undefined signs out. */
export function keepSession(s: Session | undefined) {
  session = s;
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
}

export function signOut() {
  keepSession(undefined);
  location.hash = '#/login';
}

// ---- one view at a time -----------------------------------------------------------------------

/** A new view is shown: the refresh of the one before stops. */
export function newView() {
  if (timer) clearInterval(timer);
  timer = undefined;
  viewNumber++;
}

/** The number of the view being shown, taken when a view starts loading. */
export const currentView = () => viewNumber;

/** Runs `refresh` every REFRESH_MS while view `mine` is shown (not when another was opened while it loaded). */
export function refreshEvery(mine: number, refresh: () => unknown) {
  if (mine === viewNumber) timer = setInterval(refresh, REFRESH_MS);
}

export const report = (where: HTMLElement) => (err: unknown) => where.append(failure(err));

/**
 * One error line that a view's repeated work (its refresh every few seconds) shows its latest
 * failure in, replacing the one before, and clears once it succeeds again: a failing refresh
 * does not append a message every REFRESH_MS.
 */
export function alertLine(testId: string) {
  const el = h('p', { class: 'error', role: 'alert', 'data-testid': testId, hidden: '' });
  return {
    el,
    show: (err: unknown) => {
      el.textContent = err instanceof Error ? err.message : String(err);
      el.hidden = false;
    },
    clear: () => {
      el.textContent = '';
      el.hidden = true;
    },
  };
}
