import type { grpc } from '@convo/kit';

// Reading a refused gRPC call as a caller does: the status, then the error code and field details
// the kit puts in its metadata (read here from the wire format, not with the kit's own mapping).

/** The gRPC error of a call that must fail; a call that succeeds fails the test. */
export async function rpcError(call: Promise<unknown>): Promise<grpc.ServiceError> {
  return call.then(
    () => {
      throw new Error('expected the call to fail, it succeeded');
    },
    (err: grpc.ServiceError) => err,
  );
}

/** The error's code, e.g. `ERR_TICKET_NOT_FOUND` (undefined when it carries none). */
export const errCode = (err: grpc.ServiceError) => err.metadata.get('err-code')[0];

export interface FieldError {
  field: string;
  message: string;
}

/** Every field error the call was refused with, in order ([] when there are none). */
export function errDetails(err: grpc.ServiceError): FieldError[] {
  const raw = err.metadata.get('err-details-bin')[0];
  return raw ? (JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) as FieldError[]) : [];
}

/** The fields named by the error's details, in order. */
export const errFields = (err: grpc.ServiceError): string[] => errDetails(err).map((d) => d.field);
