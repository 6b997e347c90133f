import { closeAllClients, closeHealthClients, createLogger } from '@convo/kit';
import { buildGateway } from './app';
import { readGatewayConfig } from './config';

async function main() {
  const config = readGatewayConfig();
  const { app } = await buildGateway(config);
  await app.listen({ port: config.port, host: config.host });
  const stop = async () => {
    await app.close();
    closeAllClients();
    closeHealthClients();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  createLogger('gateway').fatal({ err }, 'failed to start');
  process.exit(1);
});
