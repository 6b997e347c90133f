// The e2e suite's order: the files that start meshes of their own first (the slowest first, as
// jest orders them), then the files on the shared mesh. The shared mesh starts with the first file
// that asks for it and runs until the suite ends: started last, its processes do not share the two
// cores with every own mesh started after it (the chaos test's 18 processes among them).
const { readFileSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;

const onSharedMesh = (path) => {
  try {
    return readFileSync(path, 'utf8').includes("require('../support/shared-mesh')");
  } catch {
    return false;
  }
};

class SharedMeshLast extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    return [...ordered.filter((t) => !onSharedMesh(t.path)), ...ordered.filter((t) => onSharedMesh(t.path))];
  }
}

module.exports = SharedMeshLast;
