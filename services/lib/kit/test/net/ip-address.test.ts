import { classifyAddress, inCidr, parseCidr, parseIp } from '../../src/net/ip-address';

describe('classifyAddress', () => {
  // One row per blocked range, probing an address inside it (both edges where a range is
  // often mis-sized), with the reason that proves which rule fired.
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.255.255.255', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.0.0.1', 'IETF protocol assignments'],
    ['192.0.2.1', 'TEST-NET-1'],
    ['192.88.99.1', '6to4 relay'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.254', 'benchmarking'],
    ['198.51.100.1', 'TEST-NET-2'],
    ['203.0.113.1', 'TEST-NET-3'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('blocks IPv4 %s (%s)', (ip, reason) => {
    const v = classifyAddress(ip);
    expect(v.allowed).toBe(false);
    expect(v.reason).toContain(reason);
  });

  it.each([
    ['::', 'unspecified'],
    ['0:0:0:0:0:0:0:0', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['FD00::ABCD', 'unique local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['[fe80::1%25eth0]', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['FF05::1:3', 'multicast'],
    ['2001::1', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['[::1]', 'loopback'],
  ])('blocks IPv6 %s (%s)', (ip, reason) => {
    const v = classifyAddress(ip);
    expect(v.allowed).toBe(false);
    expect(v.reason).toContain(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::FFFF:7F00:0001', 'IPv4-mapped 127.0.0.1: loopback'],
    ['0:0:0:0:0:ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1: loopback'],
    ['::ffff:127.0.0.1%eth0', 'IPv4-mapped 127.0.0.1: loopback'], // zone id after a dotted tail
    ['::ffff:10.0.0.1', 'IPv4-mapped 10.0.0.1: private'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped 169.254.169.254: link-local'],
    ['::ffff:0.0.0.0', 'IPv4-mapped 0.0.0.0: unspecified'],
    ['::ffff:0:7f00:1', 'IPv4-translated 127.0.0.1: loopback'],
    ['64:ff9b::127.0.0.1', 'NAT64 127.0.0.1: loopback'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 169.254.169.254: link-local'],
    ['64:ff9b::c0a8:101', 'NAT64 192.168.1.1: private'],
    ['2002:7f00:1::', '6to4 127.0.0.1: loopback'],
    ['2002:a00:1::1', '6to4 10.0.0.1: private'],
    ['2002:a9fe:a9fe::', '6to4 169.254.169.254: link-local'],
  ])('blocks IPv6 %s embedding a blocked IPv4 (%s)', (ip, reason) => {
    const v = classifyAddress(ip);
    expect(v.allowed).toBe(false);
    expect(v.reason?.startsWith(reason)).toBe(true);
  });

  it.each(['::127.0.0.1', '::7f00:1', '::10.0.0.1', '::8.8.8.8'])('blocks IPv4-compatible %s (deprecated, whatever it embeds)', (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: false, reason: 'IPv4-compatible' });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.1', // just above 172.16/12
    '100.63.255.255', // just below 100.64/10
    '100.128.0.1', // just above 100.64/10
    '198.20.0.1', // just above 198.18/15
    '2001:4860:4860::8888',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows public %s', (ip) => {
    expect(classifyAddress(ip)).toEqual({ allowed: true });
  });

  it.each(['localhost', '', '127.1', '2130706433', '0x7f.0.0.1', '1.2.3.04', ':::1', 'example.com'])(
    'refuses %j: not an IP address, so it fails closed',
    (text) => {
      expect(classifyAddress(text)).toEqual({ allowed: false, reason: 'not an IP address' });
    },
  );
});

describe('parseIp / parseCidr', () => {
  it('parses every textual IPv6 form to the same bytes', () => {
    const forms = ['::ffff:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:FFFF:7F00:0001', '[::ffff:7f00:1]'];
    const bytes = forms.map((f) => Array.from(parseIp(f)!.bytes));
    for (const b of bytes) expect(b).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 127, 0, 0, 1]);
  });

  it('matches prefixes that do not end on a byte boundary', () => {
    const cgnat = parseCidr('100.64.0.0/10')!;
    expect(inCidr(parseIp('100.127.0.1')!, cgnat)).toBe(true);
    expect(inCidr(parseIp('100.128.0.1')!, cgnat)).toBe(false);
    expect(inCidr(parseIp('::ffff:100.64.0.1')!, cgnat)).toBe(false); // families never mix
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/x', '10.0.0.0/-1', 'host/8', '10.0.0/8'])(
    'rejects malformed CIDR %s',
    (text) => {
      expect(parseCidr(text)).toBeUndefined();
    },
  );
});
