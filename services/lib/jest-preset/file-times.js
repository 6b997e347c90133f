// A jest reporter: at the end of a run, every test file's wall-clock time, slowest first, so that
// a CI log says where the suite's minutes went (`.ci/run` runs every workspace's suite in turn).
// Written here because jest's own reporters print a file's time only beside a slow file's result,
// scattered through the log, and no maintained reporter prints just this table.
const { relative } = require('node:path');

class FileTimes {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.files = [];
  }

  onTestResult(_test, result) {
    const { start, end } = result.perfStats;
    const failed = result.numFailingTests > 0 || !!result.testExecError;
    this.files.push({ path: relative(this.rootDir, result.testFilePath), ms: end - start, failed });
  }

  onRunComplete() {
    if (!this.files.length) return;
    const total = this.files.reduce((sum, f) => sum + f.ms, 0);
    const lines = [...this.files]
      .sort((a, b) => b.ms - a.ms)
      .map((f) => `${(f.ms / 1000).toFixed(1).padStart(8)} s  ${f.path}${f.failed ? '  (failed)' : ''}`);
    process.stdout.write(
      `\nTest files by time (${this.files.length} files, ${(total / 1000).toFixed(1)} s in all):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = FileTimes;
