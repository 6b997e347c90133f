// Database operation latency from the MongoDB driver's command monitoring (the connection is made
// with `monitorCommands: true`): every command a process sends, mongoose or raw, is timed.
import type { Connection } from 'mongoose';
import { histogram } from './metrics';

const seconds = () =>
  histogram({
    name: 'convo_db_command_duration_seconds',
    help: 'MongoDB command latency, by database, command and outcome (ok or error).',
    labelNames: ['database', 'command', 'outcome'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  });

interface CommandEvent {
  databaseName: string;
  commandName: string;
  /** Milliseconds. */
  duration: number;
}

export function observeDatabase(conn: Connection): void {
  const client = conn.getClient();
  const record = (outcome: 'ok' | 'error') => (event: CommandEvent) =>
    seconds().observe({ database: event.databaseName, command: event.commandName, outcome }, event.duration / 1000);
  client.on('commandSucceeded', record('ok'));
  client.on('commandFailed', record('error'));
}
