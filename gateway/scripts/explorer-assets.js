// Build step: the GraphQL explorer's page (explorer/) and the GraphiQL and React browser bundles it
// loads, from the installed packages, into dist/explorer (served at /graphql/explorer/).
const { copyFileSync, mkdirSync, readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

const out = join(__dirname, '..', 'dist', 'explorer');
mkdirSync(out, { recursive: true });
const pkg = (name) => dirname(require.resolve(`${name}/package.json`));
const vendor = [
  [pkg('react'), 'umd/react.production.min.js'],
  [pkg('react-dom'), 'umd/react-dom.production.min.js'],
  [pkg('graphiql'), 'graphiql.min.js'],
  [pkg('graphiql'), 'graphiql.min.css'],
];
for (const [dir, file] of vendor) copyFileSync(join(dir, file), join(out, file.split('/').pop()));
const own = join(__dirname, '..', 'explorer');
for (const file of readdirSync(own)) copyFileSync(join(own, file), join(out, file));
console.log(`explorer → ${out}`);
