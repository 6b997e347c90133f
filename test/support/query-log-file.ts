import { join } from 'node:path';

/**
 * Where the e2e suite records the queries of its meshes (the kit's QUERY_LOG recorder) and where
 * the index-coverage check reads them: QUERY_LOG if set, else test/.query-log/e2e.jsonl.
 */
export const queryLogFile = (env: NodeJS.ProcessEnv = process.env): string =>
  env.QUERY_LOG || join(__dirname, '..', '.query-log', 'e2e.jsonl');
