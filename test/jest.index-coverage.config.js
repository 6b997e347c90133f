// The index-coverage check, run after the e2e suite (`npm test` here runs both, in that order):
// every query the e2e meshes sent (QUERY_LOG, see e2e-global-setup) must be a primary-key
// operation or be served by a declared index; and their embedded database must have logged no
// unexpected error (DEV_DB_ERROR_LOG). Its own jest run, so a failing verdict counts as a failed
// test. The rule's unit tests run here too.
module.exports = {
  preset: '@convo/jest-preset',
  testMatch: ['<rootDir>/index-coverage/**/*.test.ts'],
};
