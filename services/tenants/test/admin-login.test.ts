import { metricsRegistry } from '@convo/kit';
import { errCode, rpcError } from '@convo/test-support';
import * as grpc from '@grpc/grpc-js';
import { startHarness, tenantRequest, uniqueEmail, type Harness } from './support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('tenants-admin-login-test');
});

afterAll(async () => {
  await h?.stop();
});

describe('AuthenticateAdmin', () => {
  it("answers the tenant's administrator for the e-mail and password StoreTenant set", async () => {
    const email = uniqueEmail();
    const { tenant, adminUser } = await h.client.StoreTenant(tenantRequest({ email, password: 'Secret-pass1' }));
    const user = await h.client.AuthenticateAdmin({ email: email.toUpperCase(), password: 'Secret-pass1' });
    expect(user).toMatchObject({ id: adminUser!.id, tenantId: tenant.id, profile: 'admin' });
  });

  it('refuses a wrong password and an unknown e-mail alike', async () => {
    const email = uniqueEmail();
    await h.client.StoreTenant(tenantRequest({ email, password: 'Secret-pass1' }));
    for (const req of [
      { email, password: 'Secret-pass2' },
      { email: uniqueEmail(), password: 'Secret-pass1' },
    ]) {
      const err = await rpcError(h.client.AuthenticateAdmin(req));
      expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(errCode(err)).toBe('ERR_UNAUTHORIZED');
    }
  });

  it('refuses the administrator of an inactive tenant', async () => {
    const email = uniqueEmail();
    await h.client.StoreTenant(tenantRequest({ email, password: 'Secret-pass1', status: 'inactive' }));
    const err = await rpcError(h.client.AuthenticateAdmin({ email, password: 'Secret-pass1' }));
    expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errCode(err)).toBe('ERR_TENANT_INACTIVE');
  });

  it('refuses a user who is not an administrator', async () => {
    const email = uniqueEmail();
    await h.client.StoreTenant(tenantRequest({ email, password: 'Secret-pass1', profile: 'user' }));
    const err = await rpcError(h.client.AuthenticateAdmin({ email, password: 'Secret-pass1' }));
    expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  });
});

describe('the same work for every sign-in', () => {
  const checks = async () => (await metricsRegistry.getSingleMetric('convo_tenants_password_checks_total')?.get())?.values[0]?.value ?? 0;

  it('computes one password hash for a known e-mail, an unknown one and a non-administrator alike', async () => {
    const admin = uniqueEmail();
    const user = uniqueEmail();
    await h.client.StoreTenant(tenantRequest({ email: admin, password: 'Secret-pass1' }));
    await h.client.StoreTenant(tenantRequest({ email: user, password: 'Secret-pass1', profile: 'user' }));
    for (const email of [admin, uniqueEmail(), user]) {
      const before = await checks();
      expect((await rpcError(h.client.AuthenticateAdmin({ email, password: 'Wrong-pass1' }))).code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await checks()) - before).toBe(1);
    }
  });
});

describe('CheckAdminSession', () => {
  it('stands for the credentials signed in with, and ends with the tenant, the user or the password', async () => {
    const email = uniqueEmail();
    const tenant = await h.newTenant({ email, password: 'Secret-pass1' });
    const user = await h.client.AuthenticateAdmin({ email, password: 'Secret-pass1' });
    expect(user.credentialsVersion).toMatch(/^[\w-]{22}$/);
    const session = { tenantId: tenant.id, userId: user.id, credentialsVersion: user.credentialsVersion };
    await expect(h.client.CheckAdminSession(session)).resolves.toEqual({});
    // Another version (the password changed since), another tenant's id, a user that is not there.
    for (const req of [
      { ...session, credentialsVersion: 'x'.repeat(22) },
      { ...session, credentialsVersion: '' },
      { ...session, tenantId: tenant.id + 1000 },
      { ...session, userId: user.id + 1000 },
    ]) {
      const err = await rpcError(h.client.CheckAdminSession(req));
      expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
    }
    await h.client.UpdateTenant({ identity: tenant.identity, status: 'inactive' });
    const err = await rpcError(h.client.CheckAdminSession(session));
    expect(errCode(err)).toBe('ERR_TENANT_INACTIVE');
  });
});
