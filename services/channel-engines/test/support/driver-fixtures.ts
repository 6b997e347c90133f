import { DomainError } from '@convo/kit';
import type { DriverSettings, Outbound } from '../../src/drivers/driver';

/** What the driver tests build their settings, channels and sends from; each overrides what it is about. */

export const settingsWith = (timeoutMs: number, over: Partial<DriverSettings> = {}): DriverSettings => ({
  timeoutMs,
  engineUrl: () => '',
  engineToken: () => '',
  metaGraphUrl: '',
  smtpUrl: '',
  ...over,
});

export const channelOf = (type: string, over: Partial<Outbound['channel']> = {}): Outbound['channel'] => ({
  id: 1,
  tenantId: 1,
  type,
  engineUrl: '',
  engineToken: 'engine-secret',
  tokenApi: '',
  bmToken: '',
  pageId: '',
  pageToken: '',
  wabaId: '',
  emailAddress: '',
  marketingMessagesApi: false,
  ...over,
});

export const contentOf = (over: Partial<Outbound['content']> = {}): Outbound['content'] => ({
  text: '',
  mediaUrl: '',
  mimeType: '',
  fileName: '',
  interactiveType: '',
  interactiveJson: '',
  subject: '',
  voice: false,
  ...over,
});

export const interactiveContent = (type: string, json: unknown) =>
  contentOf({ interactiveType: type, interactiveJson: JSON.stringify(json) });

/** The DomainError a call must fail with. */
export async function failure(call: Promise<unknown>): Promise<DomainError> {
  const err = await call.then(
    () => new Error('expected the call to fail, it succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

/** The same DomainError, from a synchronous call (parseInbound). */
export function syncFailure(call: () => unknown): DomainError {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected the call to fail, it succeeded');
}

/** The provider-call records of a channel, once `count` of them are written (they are written behind the call). */
export async function deliveryRecords(
  db: { collection(name: string): { find(filter: object): { toArray(): Promise<unknown[]> } } },
  channelId: number,
  count = 1,
) {
  const until = Date.now() + 5_000;
  for (;;) {
    const records = await db.collection('deliveries').find({ channelId }).toArray();
    if (records.length >= count || Date.now() > until) return records;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
