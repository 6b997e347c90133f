import { CallStream, type grpc, type proto } from '@convo/kit';

/** What the dispatcher needs of channel-engines: one delivery, answered or failed as a unary Deliver call is. */
export interface Deliverer {
  Deliver(request: proto.channelEngines.DeliverRequest, options?: { deadlineMs?: number }): Promise<proto.channelEngines.DeliverResponse__Output>;
  /** Ends the deliveries' stream once nothing is under way (at shutdown). */
  close?(): void;
}

type Open = () => grpc.ClientDuplexStream<proto.channelEngines.DeliverItem, proto.channelEngines.DeliverOutcome__Output>;

/**
 * Deliveries over channel-engines' DeliverStream (the kit's CallStream): failures arrive as the
 * statuses a unary Deliver would have failed with, so the dispatcher classifies them alike (a
 * broken stream or no answer in time: transient, retried).
 */
export function deliveryStream(open: Open, streamMs?: number): Required<Deliverer> {
  const stream = new CallStream(open, { service: 'channelEngines', method: 'Deliver', peer: 'channel-engines', streamMs });
  return { Deliver: stream.call, close: () => stream.close() };
}
