import * as grpc from '@grpc/grpc-js';
import { DomainError, notFound, providerFailed, validation, conflict, payloadTooLarge } from '../../src/errors';
import { CODE_TO_HTTP, GRPC_TO_HTTP, RETRY_AFTER_SECONDS, domainToHttp, grpcToHttp, toGrpcError } from '../../src/grpc/status';

const { status: S } = grpc;

/** What a client sees after the status object crossed the wire. */
function asServiceError(status: Partial<grpc.StatusObject>): grpc.ServiceError {
  return Object.assign(new Error(status.details), {
    code: status.code!,
    details: status.details ?? '',
    metadata: status.metadata ?? new grpc.Metadata(),
  });
}

describe('gRPC → HTTP table', () => {
  const expected: Array<[grpc.status, number]> = [
    [S.OK, 200],
    [S.CANCELLED, 499],
    [S.UNKNOWN, 500],
    [S.INVALID_ARGUMENT, 400],
    [S.DEADLINE_EXCEEDED, 504],
    [S.NOT_FOUND, 404],
    [S.ALREADY_EXISTS, 409],
    [S.PERMISSION_DENIED, 403],
    [S.RESOURCE_EXHAUSTED, 429],
    [S.FAILED_PRECONDITION, 400],
    [S.ABORTED, 409],
    [S.OUT_OF_RANGE, 400],
    [S.UNIMPLEMENTED, 501],
    [S.INTERNAL, 500],
    [S.UNAVAILABLE, 503],
    [S.DATA_LOSS, 500],
    [S.UNAUTHENTICATED, 401],
  ];

  it('covers every gRPC status code', () => {
    const codes = Object.values(S).filter((v): v is number => typeof v === 'number');
    expect(
      Object.keys(GRPC_TO_HTTP)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual(codes.sort((a, b) => a - b));
  });

  it.each(expected)('status %i answers HTTP %i', (code, http) => {
    expect(GRPC_TO_HTTP[code]).toBe(http);
    if (code !== S.OK) expect(grpcToHttp(asServiceError({ code, details: 'x' })).status).toBe(http);
  });

  it('lets error codes that gRPC cannot express win over the table', () => {
    expect(CODE_TO_HTTP).toEqual({ ERR_PAYLOAD_TOO_LARGE: 413, ERR_UNSUPPORTED_MEDIA_TYPE: 415, ERR_PROVIDER_FAILED: 502 });
    expect(grpcToHttp(asServiceError(toGrpcError(providerFailed('engine said no')))).status).toBe(502);
    expect(grpcToHttp(asServiceError(toGrpcError(payloadTooLarge('too big')))).status).toBe(413);
    expect(grpcToHttp(asServiceError(toGrpcError(new DomainError('unsupported_media', 'ERR_UNSUPPORTED_MEDIA_TYPE', 'no')))).status).toBe(
      415,
    );
  });
});

describe('domain error → gRPC → HTTP envelope', () => {
  it('keeps the code, the message and the field details', () => {
    const err = validation('Invalid body', [{ field: 'ticketId', message: 'must be an integer' }]);
    expect(grpcToHttp(asServiceError(toGrpcError(err)))).toEqual({
      status: 400,
      body: {
        success: false,
        error: 'ERR_VALIDATION',
        message: 'Invalid body',
        details: [{ field: 'ticketId', message: 'must be an integer' }],
      },
    });
  });

  it('names the missing thing in the not-found code', () => {
    expect(grpcToHttp(asServiceError(toGrpcError(notFound('ticket'))))).toEqual({
      status: 404,
      body: { success: false, error: 'ERR_TICKET_NOT_FOUND', message: 'Ticket not found' },
    });
  });

  it('maps conflicts to 409 with their own code', () => {
    const r = grpcToHttp(asServiceError(toGrpcError(conflict('ERR_TICKET_CLOSED', 'Ticket is closed'))));
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('ERR_TICKET_CLOSED');
  });

  it('hides internals of unexpected errors', () => {
    const status = toGrpcError(new Error('secret stack detail'));
    expect(status.code).toBe(S.INTERNAL);
    expect(grpcToHttp(asServiceError(status)).body).toEqual({
      success: false,
      error: 'ERR_INTERNAL',
      message: 'Service unavailable or failed',
    });
  });

  it('passes a downstream service status through unchanged', () => {
    const downstream = asServiceError(toGrpcError(notFound('channel')));
    expect(grpcToHttp(asServiceError(toGrpcError(downstream))).body.error).toBe('ERR_CHANNEL_NOT_FOUND');
  });

  it('answers 503 with a generic code when a peer is unreachable', () => {
    const r = grpcToHttp(asServiceError({ code: S.UNAVAILABLE, details: 'No connection established' }));
    expect(r).toEqual({
      status: 503,
      body: { success: false, error: 'ERR_UNAVAILABLE', message: 'Service unavailable or failed' },
      headers: { 'retry-after': '5' },
    });
  });

  it('tells when to retry on 503 only, whichever layer raised it', () => {
    expect(RETRY_AFTER_SECONDS).toEqual({ 503: 5 });
    expect(domainToHttp(new DomainError('unavailable', 'ERR_UNAVAILABLE', 'starting')).headers).toEqual({ 'retry-after': '5' });
    expect(grpcToHttp(asServiceError({ code: S.DEADLINE_EXCEEDED, details: 'x' })).headers).toBeUndefined();
    // A provider failure travels as UNAVAILABLE but answers 502: not the facade's own outage.
    expect(grpcToHttp(asServiceError(toGrpcError(providerFailed('no')))).headers).toBeUndefined();
  });
});

describe('domain error raised in the facade → HTTP', () => {
  it('answers what the same error would answer after crossing gRPC', () => {
    for (const err of [
      validation('bad', [{ field: 'x', message: 'y' }]),
      notFound('tenant'),
      conflict('ERR_X', 'x'),
      providerFailed('no'),
    ]) {
      expect(domainToHttp(err)).toEqual(grpcToHttp(asServiceError(toGrpcError(err))));
    }
  });
});
