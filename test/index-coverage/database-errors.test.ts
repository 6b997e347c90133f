// Run after the e2e suite with the index-coverage check (`npm test` here, or `npx jest e2e/<file>`
// then `npm run test:index-coverage`): the embedded database reported no error but the expected
// conflicts (a claim lost to a duplicate key, an index that exists), which dev-db leaves out
// (services/lib/dev-db/src/ferretdb-log.ts). Each line says what failed: PostgreSQL's error and
// the statement.
import { existsSync, readFileSync } from 'node:fs';
import { databaseErrorsFile } from '../support/database-errors-file';

const file = databaseErrorsFile();

it("the e2e meshes' embedded database logged no unexpected error", () => {
  if (!existsSync(file))
    throw new Error(`No database error log at ${file}: run the e2e suite first (npx jest in test/, which records it).`);
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  if (lines.length) {
    const shown = lines.slice(0, 20).join('\n');
    throw new Error(
      `${lines.length} unexpected errors of the embedded database (FerretDB) in ${file}:\n${shown}${lines.length > 20 ? '\n…' : ''}\n`,
    );
  }
});
