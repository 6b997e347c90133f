// The bench's fake provider in a process of its own: the load generator's own work (and its
// garbage) must not delay the provider's answers, nor the provider's the generator's timing.
// Started by run.ts over IPC; prints its URL on stdout and answers `count` (requests received so
// far) and `delay` (every answer from now on waits this long) messages.
import { startFakeEngine } from '../support/fake-engine';

type Ask = { id: number; count: true } | { id: number; delayMs: number };

async function main() {
  // Connections stay open between calls, as providers' servers keep them: with the tests' 1 s,
  // undici opened a connection for every call, a third of channel-engines' CPU in the bench (and
  // a share of the floor's).
  const engine = await startFakeEngine({ keepAliveMs: 65_000 });
  let counted = 0;
  process.on('message', (ask: Ask) => {
    if ('delayMs' in ask) engine.delay(ask.delayMs);
    // Only their number is asked for: the requests recorded so far are let go.
    counted += engine.requests.length;
    engine.requests.length = 0;
    process.send!({ id: ask.id, count: counted });
  });
  process.on('disconnect', () => void engine.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ url: engine.url }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
