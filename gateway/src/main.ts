import '@convo/kit/observability/register'; // first: tracing instruments what loads after it
import { closeAllClients, closeHealthClients, createLogger, flushTraces } from '@convo/kit';
import { buildGateway } from './app';
import { readGatewayConfig } from './config';

async function main() {
  const config = readGatewayConfig();
  const { app, auth } = await buildGateway(config);
  await app.listen({ port: config.port, host: config.host });
  const stop = async () => {
    setTimeout(() => process.exit(0), config.shutdownGraceMs).unref();
    auth.close();
    await app.close();
    closeAllClients();
    closeHealthClients();
    await flushTraces();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  createLogger('gateway').fatal({ err }, 'failed to start');
  process.exit(1);
});
