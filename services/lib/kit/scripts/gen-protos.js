// Generates TypeScript types for every proto with the same options the runtime loader uses,
// and copies the protos next to the compiled code so a built package is self-contained.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../../../protos');
const out = path.resolve(__dirname, '../src/generated');
const copy = path.resolve(__dirname, '../dist/protos');

const files = [];
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(p);
    else if (entry.name.endsWith('.proto')) files.push(path.relative(root, p));
  }
})(root);

fs.rmSync(out, { recursive: true, force: true });
const bin = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
// Keep these flags in step with PROTO_OPTIONS in src/grpc/protos.ts.
execFileSync(
  process.execPath,
  [bin, '--grpcLib=@grpc/grpc-js', '--longs=String', '--enums=String', '--defaults', '--oneofs', `--outDir=${out}`, `-I${root}`, ...files],
  { stdio: 'inherit' },
);

fs.rmSync(copy, { recursive: true, force: true });
fs.cpSync(root, copy, { recursive: true });

// One barrel per service package, so code imports `proto.tickets.Ticket__Output` etc.
for (const svc of fs.readdirSync(path.join(out, 'convo'))) {
  const dir = path.join(out, 'convo', svc, 'v1');
  const lines = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `export type * from './convo/${svc}/v1/${f.slice(0, -3)}';`);
  fs.writeFileSync(path.join(out, `${svc}.barrel.ts`), `${lines.join('\n')}\n`);
}
