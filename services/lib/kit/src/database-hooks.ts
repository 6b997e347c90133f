// What a process may attach to every database connection the kit opens, without the kit knowing
// what it is: tooling preloaded into a process (`node --require`), such as the e2e suite's query
// log (@convo/test-support/query-log-preload). Nothing registers a hook in production. This module
// loads nothing (not even mongoose), so a preload can register before the entry file starts
// tracing and loads the rest.
import type { Connection } from 'mongoose';

export type DatabaseHook = (conn: Connection) => void;

const hooks = new Set<DatabaseHook>();

/** Calls `hook` with every connection connectDatabase opens from now on; returns its removal. */
export function onDatabaseConnected(hook: DatabaseHook): () => void {
  hooks.add(hook);
  return () => void hooks.delete(hook);
}

/** connectDatabase's side: a hook that throws is tooling's fault and never fails the connection. */
export function databaseConnected(conn: Connection): void {
  for (const hook of hooks) {
    try {
      hook(conn);
    } catch {
      // tooling must never be in the way of a connection
    }
  }
}
