import { readGatewayConfig } from '../src/config';

// The gateway's settings are read in one place (config.ts), its shutdown grace among them.

const env = { SUPER_ADMIN_TOKEN: 'x'.repeat(20), SUBGRAPH_TOKEN: 'g'.repeat(32), SESSION_SECRET: 's'.repeat(32) };

describe('gateway config', () => {
  it('reads SHUTDOWN_GRACE_MS (10 s by default) and refuses a value that is not a number', () => {
    expect(readGatewayConfig(env).shutdownGraceMs).toBe(10_000);
    expect(readGatewayConfig({ ...env, SHUTDOWN_GRACE_MS: '2500' }).shutdownGraceMs).toBe(2_500);
    expect(() => readGatewayConfig({ ...env, SHUTDOWN_GRACE_MS: 'soon' })).toThrow(/SHUTDOWN_GRACE_MS/);
  });
});
