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
    expect(user).toMatchObject({ id: adminUser!.id, tenantId: tenant!.id, profile: 'admin' });
  });

  it('refuses a wrong password and an unknown e-mail alike', async () => {
    const email = uniqueEmail();
    await h.client.StoreTenant(tenantRequest({ email, password: 'Secret-pass1' }));
    for (const req of [{ email, password: 'Secret-pass2' }, { email: uniqueEmail(), password: 'Secret-pass1' }]) {
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
