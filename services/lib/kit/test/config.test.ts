import { EnvReader, isLocalOnlyHost, isProduction } from '../src/config';

const publicUrl = (env: NodeJS.ProcessEnv) => {
  const reader = new EnvReader(env);
  const value = reader.publicUrl('PUBLIC_BASE_URL', 'http://127.0.0.1:8080');
  reader.done();
  return value;
};

describe('EnvReader.publicUrl', () => {
  it('defaults to loopback in development (npm start, tests)', () => {
    expect(publicUrl({})).toBe('http://127.0.0.1:8080');
    expect(publicUrl({ NODE_ENV: 'test' })).toBe('http://127.0.0.1:8080');
    expect(publicUrl({ NODE_ENV: 'development', PUBLIC_BASE_URL: 'http://localhost:9000' })).toBe('http://localhost:9000');
  });

  it('requires a public URL in production', () => {
    expect(() => publicUrl({ NODE_ENV: 'production' })).toThrow('PUBLIC_BASE_URL is required in production');
    expect(() => publicUrl({ NODE_ENV: 'production', PUBLIC_BASE_URL: '' })).toThrow('is required in production');
    for (const local of [
      'http://127.0.0.1:8080',
      'http://127.1.2.3',
      'http://localhost:8080/',
      'http://api.localhost',
      'http://0.0.0.0:8080',
      'http://[::1]:8080',
      'http://[::]:8080',
      'http://[::ffff:127.0.0.1]',
      'https://CHANGE-ME.invalid',
    ]) {
      expect(() => publicUrl({ NODE_ENV: 'production', PUBLIC_BASE_URL: local })).toThrow('reachable only from this machine');
    }
    expect(publicUrl({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' })).toBe('https://api.example.com');
    expect(publicUrl({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'http://gateway.convo-dev.svc' })).toBe('http://gateway.convo-dev.svc');
  });

  it('refuses what is not an http(s) URL anywhere', () => {
    expect(() => publicUrl({ PUBLIC_BASE_URL: 'api.example.com' })).toThrow('must be an absolute http(s) URL');
    expect(() => publicUrl({ PUBLIC_BASE_URL: 'ftp://api.example.com' })).toThrow('must be an http(s) URL');
  });

  it('knows production by NODE_ENV alone', () => {
    expect(isProduction({ NODE_ENV: 'production' })).toBe(true);
    expect(isProduction({})).toBe(false);
    expect(isLocalOnlyHost('10.0.0.5')).toBe(false);
    expect(isLocalOnlyHost('gateway')).toBe(false);
  });
});
