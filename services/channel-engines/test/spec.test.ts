import { EnvReader } from '@convo/kit';
import { DEFAULT_META_GRAPH_URL } from '@convo/kit/meta-graph';
import { readEnginesConfig } from '../src/spec';

describe('readEnginesConfig', () => {
  it("calls Meta at the kit's Graph API version unless META_GRAPH_URL names another base", () => {
    expect(readEnginesConfig(new EnvReader({})).metaGraphUrl).toBe(DEFAULT_META_GRAPH_URL);
    expect(readEnginesConfig(new EnvReader({ META_GRAPH_URL: 'http://graph.test/v99.0' })).metaGraphUrl).toBe('http://graph.test/v99.0');
  });
});
