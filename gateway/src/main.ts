import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { closeAllClients, closeHealthClients, flushTraces, runProcess } from '@convo/kit';
import { buildGateway } from './app';
import { readGatewayConfig } from './config';
import { warmUpThenReady } from './warmup';

// The kit's process runner, as every service runs: signals stop it once, a failed start exits 1.
runProcess({
  name: 'gateway',
  async start() {
    const config = readGatewayConfig();
    const gateway = await buildGateway(config);
    const { app, auth } = gateway;
    await app.listen({ port: config.port, host: config.host });
    // Listening (liveness answers) but not ready until its hot paths ran (warmup.ts).
    await warmUpThenReady(gateway, config.warmup);
    return {
      // Shutdown is bounded: whatever still holds the process after this long is cut off.
      graceMs: config.shutdownGraceMs,
      async stop() {
        auth.close();
        await app.close();
        closeAllClients();
        closeHealthClients();
        await flushTraces();
      },
    };
  },
});
