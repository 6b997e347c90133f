import { join } from 'node:path';

/**
 * Where the e2e suite's embedded databases record the errors FerretDB logs that are no expected
 * conflict (dev-db's DEV_DB_ERROR_LOG, services/lib/dev-db/src/ferretdb-log.ts), and where the
 * check after the suite reads them: DEV_DB_ERROR_LOG if set, else test/.query-log/database-errors.log.
 */
export const databaseErrorsFile = (env: NodeJS.ProcessEnv = process.env): string =>
  env.DEV_DB_ERROR_LOG || join(__dirname, '..', '.query-log', 'database-errors.log');
