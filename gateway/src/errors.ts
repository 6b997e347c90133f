import { DomainError, domainToHttp, grpcToHttp, isServiceError } from '@convo/kit';
import type { FastifyError, FastifyInstance } from 'fastify';
import { isMalformedMultipart } from './validation/multipart';
import { routeMethods } from './method-not-allowed';

/** Every field error at once, so an integrator fixes a request in one round. */
export const AJV_OPTIONS = {
  customOptions: { allErrors: true, coerceTypes: 'array' as const, removeAdditional: true, useDefaults: true },
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- Fastify's ajv types differ from ajv-formats' copy
  plugins: [require('ajv-formats')],
};

interface AjvIssue {
  instancePath?: string;
  message?: string;
  params?: { missingProperty?: string; additionalProperty?: string };
}

/** `/buttons/0/id` → `buttons[0].id`; a missing property is named itself. */
export function fieldOf(issue: AjvIssue, prefix = ''): string {
  const path = (issue.instancePath ?? '')
    .split('/')
    .filter(Boolean)
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : acc ? `${acc}.${part}` : part), prefix);
  const leaf = issue.params?.missingProperty ?? issue.params?.additionalProperty;
  return leaf ? (path ? `${path}.${leaf}` : leaf) : path || '(body)';
}

/** An error answer stays a few kilobytes whatever the request: at most this many field errors. */
export const MAX_DETAILS = 20;

export const envelope = (error: string, message: string, details?: unknown[]) => ({
  success: false as const,
  error,
  message,
  ...(details ? { details: details.slice(0, MAX_DETAILS) } : {}),
  ...(details && details.length > MAX_DETAILS ? { truncated: true } : {}),
});

/** Every failure answers the envelope of CONVENTIONS.md, whichever layer raised it. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, req, reply) => {
    if (isServiceError(error)) {
      const { status, body, headers } = grpcToHttp(error);
      if (status >= 500) req.log.warn({ grpcCode: error.code, error: body.error }, 'upstream failure');
      return reply
        .code(status)
        .headers(headers ?? {})
        .send(body);
    }
    if (error instanceof DomainError) {
      const { status, body, headers } = domainToHttp(error);
      return reply
        .code(status)
        .headers(headers ?? {})
        .send(body);
    }
    const err = error as FastifyError & { validationContext?: string };
    if (err.validation) {
      const details = err.validation
        .slice(0, MAX_DETAILS + 1)
        .map((v) => ({ field: fieldOf(v as AjvIssue), message: v.message ?? 'is invalid' }));
      return reply.code(400).send(envelope('ERR_VALIDATION', `Invalid ${err.validationContext ?? 'request'}`, details));
    }
    if (isMalformedMultipart(req, err)) {
      return reply.code(400).send(envelope('ERR_VALIDATION', 'Malformed multipart/form-data body'));
    }
    if (err.statusCode === 413 || err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).send(envelope('ERR_PAYLOAD_TOO_LARGE', 'Request body is too large'));
    }
    if (err.statusCode === 415 || err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return reply.code(415).send(envelope('ERR_UNSUPPORTED_MEDIA_TYPE', 'Send application/json or multipart/form-data'));
    }
    if (err.statusCode === 400) {
      // An empty or malformed JSON body and the like: the caller's mistake (CONVENTIONS "Errors").
      return reply
        .code(400)
        .send(
          envelope(
            'ERR_VALIDATION',
            err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
              ? 'The request body is empty'
              : err.code === 'FST_ERR_CTP_INVALID_JSON_BODY'
                ? 'The request body is not valid JSON'
                : err.message,
          ),
        );
    }
    if (err.statusCode && err.statusCode > 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send(envelope('ERR_BAD_REQUEST', err.message));
    }
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(envelope('ERR_INTERNAL', 'Internal error'));
  });
  const methodsOf = routeMethods(app);
  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allow = methodsOf(path);
    if (allow.length) {
      return reply
        .code(405)
        .header('allow', allow.join(', '))
        .send(envelope('ERR_METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; use ${allow.join(' or ')}`));
    }
    return reply.code(404).send(envelope('ERR_ROUTE_NOT_FOUND', `No route ${req.method} ${path}`));
  });
}
