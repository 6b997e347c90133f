import { DomainError } from '../../src/errors';
import { isAddressAllowListed, isHostAllowListed, parseAllowList } from '../../src/net/allow-list';

describe('parseAllowList (WEBHOOK_ALLOWED_PRIVATE)', () => {
  it('is empty by default', () => {
    for (const env of [undefined, '', ' , ,']) {
      const list = parseAllowList(env);
      expect(list.hosts.size).toBe(0);
      expect(list.cidrs).toHaveLength(0);
    }
  });

  it('parses host names, addresses and CIDRs of both families', () => {
    const list = parseAllowList(' Hooks.Internal. , 127.0.0.1, 10.1.0.0/16, fd00::/8 ');
    expect(isHostAllowListed(list, 'hooks.internal')).toBe(true);
    expect(isHostAllowListed(list, 'HOOKS.internal.')).toBe(true);
    expect(isAddressAllowListed(list, '127.0.0.1')).toBe(true);
    expect(isAddressAllowListed(list, '127.0.0.2')).toBe(false);
    expect(isAddressAllowListed(list, '10.1.200.3')).toBe(true);
    expect(isAddressAllowListed(list, '10.2.0.1')).toBe(false);
    expect(isAddressAllowListed(list, 'fd12::1')).toBe(true);
    expect(isAddressAllowListed(list, 'fc00::1')).toBe(false);
  });

  it('matches host names exactly, never as a suffix', () => {
    const list = parseAllowList('hooks.internal');
    expect(isHostAllowListed(list, 'evil.hooks.internal')).toBe(false);
    expect(isHostAllowListed(list, 'hooks.internal.evil.com')).toBe(false);
  });

  it('matches an IPv4-mapped IPv6 address against IPv4 CIDRs', () => {
    const list = parseAllowList('127.0.0.0/8');
    expect(isAddressAllowListed(list, '::ffff:127.0.0.1')).toBe(true);
    expect(isAddressAllowListed(list, '::ffff:7f00:1')).toBe(true);
    expect(isAddressAllowListed(list, '::ffff:10.0.0.1')).toBe(false);
  });

  it.each(['10.0.0.0/33', 'bad host', 'a/b', 'http://x', '300.1.1.1/8'])('rejects the malformed entry %j', (env) => {
    expect(() => parseAllowList(env)).toThrow(DomainError);
  });
});
