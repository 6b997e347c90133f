import pino, { type Logger } from 'pino';
import { processEnv } from './config';

export type { Logger };

/** JSON logs with a `severity` field, which log collectors (Cloud Logging, Loki) understand. */
export function createLogger(service: string, level = processEnv.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    messageKey: 'message',
    formatters: { level: (label) => ({ severity: label.toUpperCase() }) },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
