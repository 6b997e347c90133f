import { parseAllowList } from '../src/net/allow-list';
import { isHttpUrl, targetUrlProblem } from '../src/net/target-check';

const resolver = (answers: Record<string, string[]>) => async (host: string) => {
  const addresses = answers[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('targetUrlProblem (webhook and callback URLs, checked when set)', () => {
  const none = parseAllowList('');
  const dns = resolver({
    'hooks.example': ['93.184.216.34'],
    'inside.example': ['93.184.216.34', '10.0.0.7'],
    'metadata.example': ['169.254.169.254'],
  });

  it('accepts public targets, and names that do not resolve yet', async () => {
    expect(await targetUrlProblem('https://hooks.example/in', none, dns)).toBeUndefined();
    expect(await targetUrlProblem('https://93.184.216.34/in', none, dns)).toBeUndefined();
    expect(await targetUrlProblem('https://not-yet.example/in', none, dns)).toBeUndefined();
  });

  it('refuses private, loopback and metadata targets, by address or by name, without naming the address', async () => {
    for (const url of [
      'http://127.0.0.1:8080/x',
      'http://[::1]/x',
      'http://2130706433/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
    ]) {
      expect(await targetUrlProblem(url, none, dns)).toEqual(expect.stringContaining('not public'));
    }
    for (const url of ['https://inside.example/in', 'http://metadata.example/']) {
      const problem = await targetUrlProblem(url, none, dns);
      expect(problem).toMatch(/resolves to a non-public address$/);
      expect(problem).not.toMatch(/10\.0\.0\.7|169\.254/);
    }
  });

  it('refuses other schemes and credentials', async () => {
    expect(await targetUrlProblem('ftp://hooks.example/x', none, dns)).toMatch(/only http and https/);
    expect(await targetUrlProblem('https://u:p@hooks.example/x', none, dns)).toMatch(/credentials/);
  });

  it("lets the operator's allow-list through (hosts and CIDRs)", async () => {
    expect(await targetUrlProblem('http://127.0.0.1:8080/x', parseAllowList('127.0.0.1'), dns)).toBeUndefined();
    expect(await targetUrlProblem('https://inside.example/in', parseAllowList('10.0.0.0/8'), dns)).toBeUndefined();
    expect(await targetUrlProblem('https://inside.example/in', parseAllowList('inside.example'), dns)).toBeUndefined();
  });
});

describe('isHttpUrl', () => {
  it('takes absolute http and https URLs only', () => {
    expect(['http://a.example/x', 'https://a.example', 'HTTPS://A.EXAMPLE/'].map(isHttpUrl)).toEqual([true, true, true]);
    expect(['ftp://a.example', 'javascript:alert(1)', '/relative', 'a.example', '', undefined, 42].map(isHttpUrl)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
