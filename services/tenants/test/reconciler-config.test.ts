import { readReconcilerConfig } from '../src/reconciler/config';

// The reconciler's settings are read in its config module, with the tenants service's it shares.

describe('reconciler config', () => {
  it('reads its own settings and the payment settings of the tenants service', () => {
    const config = readReconcilerConfig({ MONGODB_URI: 'mongodb://db/', RECONCILER_ID: 'r-1', SHUTDOWN_GRACE_MS: '2500' });
    expect(config).toMatchObject({
      mongodbUri: 'mongodb://db/',
      reconcilerId: 'r-1',
      shutdownGraceMs: 2_500,
      healthPort: 4015,
      logLevel: 'info',
    });
    expect(config.tenants.reconcile).toBeDefined();
    expect(readReconcilerConfig({ MONGODB_URI: 'mongodb://db/' }).reconcilerId).toMatch(/-\d+$/);
  });

  it('refuses a setting that is not a number', () => {
    expect(() => readReconcilerConfig({ MONGODB_URI: 'mongodb://db/', RECONCILER_HEALTH_PORT: 'x' })).toThrow(/RECONCILER_HEALTH_PORT/);
  });
});
