// The node flags of every Deployment's command (deploy/base) are the ones the dev mesh runs every
// process with (NODE_FLAGS), so that the tests and benches run the heap the pods do.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const { NODE_FLAGS } = require('@convo/dev-mesh') as typeof import('@convo/dev-mesh');

const base = join(__dirname, '..', '..', 'deploy', 'base');

/** Every `command: ["node", …]` of the base manifests, by file. */
function nodeCommands(): [string, string[]][] {
  return readdirSync(base)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      [...readFileSync(join(base, file), 'utf8').matchAll(/^\s*command: (\["node",.*\])\s*$/gm)].map((m): [string, string[]] => [
        file,
        JSON.parse(m[1]) as string[],
      ]),
    );
}

describe('node flags', () => {
  it('are the same in every Deployment that runs node as in the dev mesh', () => {
    const commands = nodeCommands();
    // The five services, the gateway, the relay, the dispatcher and the tenants reconciler.
    expect(commands.length).toBeGreaterThanOrEqual(9);
    for (const [file, command] of commands) {
      const script = command.findIndex((a) => a.endsWith('.js'));
      expect({ file, flags: command.slice(1, script) }).toEqual({ file, flags: NODE_FLAGS });
    }
  });

  it('start V8 with its young generation at 16 MB a semi-space on this Node, where it starts at 1 MB without them', () => {
    // The new space's size as a fresh process sees it, in MB (its two semi-spaces as V8 counts them).
    const newSpace = (flags: string[]) =>
      Number(
        execFileSync(
          process.execPath,
          [
            ...flags,
            '-e',
            "process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20))",
          ],
          {
            encoding: 'utf8',
            timeout: 30_000,
          },
        ),
      );
    expect(newSpace(NODE_FLAGS)).toBeGreaterThanOrEqual(16);
    expect(newSpace([])).toBeLessThan(16);
  });
});
