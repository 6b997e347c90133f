export type DatabaseKind = 'external' | 'ferretdb' | 'memory-server';

export interface Database {
  /** A MongoDB connection string; FerretDB and memory-server ones carry no database name. */
  uri: string;
  kind: DatabaseKind;
  /** Stops the server and deletes its data. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Labels the run folder, so leftovers can be traced to whoever started them. */
  name?: string;
  log?: (line: string) => void;
}
