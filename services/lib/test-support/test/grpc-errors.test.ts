import { grpc, notFound, toGrpcError, validation } from '@convo/kit';
import { errCode, errDetails, errFields, rpcError } from '../src/grpc-errors';

/** The error a client gets for a domain error, built as the kit's servers send it. */
const refused = (err: Error): grpc.ServiceError => Object.assign(new Error('refused'), toGrpcError(err)) as grpc.ServiceError;

describe('gRPC error helpers', () => {
  it('hand back the rejection of a failing call, and fail on a call that succeeds', async () => {
    const err = refused(notFound('ticket'));
    await expect(rpcError(Promise.reject(err))).resolves.toBe(err);
    await expect(rpcError(Promise.resolve({}))).rejects.toThrow('expected the call to fail, it succeeded');
  });

  it('read the code and every field error from the metadata', () => {
    const err = refused(
      validation('Invalid request', [
        { field: 'number', message: 'is required' },
        { field: 'limit', message: 'at most 100' },
      ]),
    );
    expect(errCode(err)).toBe('ERR_VALIDATION');
    expect(errDetails(err)).toEqual([
      { field: 'number', message: 'is required' },
      { field: 'limit', message: 'at most 100' },
    ]);
    expect(errFields(err)).toEqual(['number', 'limit']);
  });

  it('answer no details for an error without field errors', () => {
    const err = refused(notFound('ticket'));
    expect(errCode(err)).toBe('ERR_TICKET_NOT_FOUND');
    expect(errFields(err)).toEqual([]);
  });
});
