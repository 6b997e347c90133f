import { EnvReader } from '@convo/kit';
import { DEFAULT_META_GRAPH_URL } from '@convo/kit/meta-graph';
import { readSocialConfig } from '../src/spec';

describe('readSocialConfig', () => {
  it("calls Meta at the kit's Graph API version unless META_GRAPH_URL names another base", () => {
    expect(readSocialConfig(new EnvReader({})).graphUrl).toBe(DEFAULT_META_GRAPH_URL);
    expect(readSocialConfig(new EnvReader({ META_GRAPH_URL: 'http://graph.test/v99.0' })).graphUrl).toBe('http://graph.test/v99.0');
  });
});
