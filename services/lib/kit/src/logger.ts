import pino, { type Logger } from 'pino';
import { processEnv } from './config';
import { traceFields } from './observability/trace-context';

export type { Logger };

/**
 * JSON logs with a `severity` field, which log collectors (Cloud Logging, Loki) understand, and the
 * active trace's `traceId`/`spanId` on every line written while serving a request.
 */
export function createLogger(service: string, level = processEnv.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    messageKey: 'message',
    formatters: { level: (label) => ({ severity: label.toUpperCase() }) },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
  });
}
