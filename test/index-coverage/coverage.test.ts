// The index-coverage check over what the e2e suite recorded (run after it: `npm test` here, or
// `npx jest e2e/<file>` then `npm run test:index-coverage`). Every query the services sent must be
// a primary-key operation or be served by an index they declared, by MongoDB's ESR rule
// (support/index-coverage.ts); the report lists each unserved shape with where it came from.
import { existsSync, readFileSync } from 'node:fs';
import { checkCoverage, formatFindings, type QueryLogLine } from '../support/index-coverage';
import { queryLogFile } from '../support/query-log-file';

const SERVICE_DATABASES = ['convo_tickets', 'convo_messaging', 'convo_engines', 'convo_social', 'convo_tenants'];

const file = queryLogFile();

function readLog(): QueryLogLine[] {
  if (!existsSync(file)) throw new Error(`No query log at ${file}: run the e2e suite first (npx jest in test/, which records it).`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as QueryLogLine);
}

describe('index coverage of the e2e suite', () => {
  let lines: QueryLogLine[];
  beforeAll(() => {
    lines = readLog();
  });

  it('recorded the queries and the indexes of every service', () => {
    const queried = new Set(lines.filter((l) => l.t === 'query').map((l) => l.db));
    const indexed = new Set(lines.filter((l) => l.t === 'index').map((l) => l.db));
    expect({ queried: SERVICE_DATABASES.filter((d) => queried.has(d)), indexed: SERVICE_DATABASES.filter((d) => indexed.has(d)) }).toEqual({
      queried: SERVICE_DATABASES,
      indexed: SERVICE_DATABASES,
    });
  });

  it('sends no query that is neither by primary key nor served by a declared index', () => {
    const { queries, findings } = checkCoverage(lines);
    expect(queries).toBeGreaterThan(0);
    if (findings.length) {
      throw new Error(
        `${findings.length} of ${queries} query shapes recorded in ${file} are not served by an index ` +
          `(declare one in the service's db/ models, or change the query):\n\n${formatFindings(findings)}\n`,
      );
    }
  });
});
