import { spawn } from 'node:child_process';
import { join } from 'node:path';

// runProcess in a real child process (it ends its process): signals stop it once, a failed start
// exits 1, a signal during start-up aborts the start-up.

const runner = join(__dirname, '..', 'dist', 'process-runner.js');

function run(body: string): { out: Promise<{ code: number | null; stdout: string }>; child: ReturnType<typeof spawn> } {
  const script = `process.env.LOG_LEVEL = 'silent'; const { runProcess } = require(${JSON.stringify(runner)}); ${body}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  const out = new Promise<{ code: number | null; stdout: string }>((resolve) => child.on('exit', (code) => resolve({ code, stdout })));
  return { out, child };
}

const waitFor = async (read: () => string, text: string) => {
  for (let i = 0; i < 200 && !read().includes(text); i++) await new Promise((r) => setTimeout(r, 25));
};

it('stops a started process once on SIGTERM and exits 0', async () => {
  const { out, child } = run(`runProcess({ name: 't', start: async () => { console.log('started'); const t = setInterval(() => {}, 1000);
    return { stop: async () => { clearInterval(t); console.log('stopped'); } }; } });`);
  let seen = '';
  child.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
  await waitFor(() => seen, 'started');
  child.kill('SIGTERM');
  const { code, stdout } = await out;
  expect(code).toBe(0);
  expect(stdout.match(/stopped/g)).toHaveLength(1);
});

it('exits 1 when the start-up fails, and when stopping fails', async () => {
  expect((await run(`runProcess({ name: 't', start: async () => { throw new Error('no config'); } });`).out).code).toBe(1);
  const failing = run(`runProcess({ name: 't', start: async () => { console.log('started'); setInterval(() => {}, 1000);
    return { stop: async () => { throw new Error('stuck'); } }; } });`);
  let seen = '';
  failing.child.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
  await waitFor(() => seen, 'started');
  failing.child.kill('SIGTERM');
  expect((await failing.out).code).toBe(1);
});

it('cuts a stop that hangs off after graceMs, and aborts a start-up a signal interrupts', async () => {
  const hanging = run(`runProcess({ name: 't', start: async () => { console.log('started'); setInterval(() => {}, 1000);
    return { graceMs: 200, stop: () => new Promise(() => {}) }; } });`);
  let seen = '';
  hanging.child.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
  await waitFor(() => seen, 'started');
  const at = Date.now();
  hanging.child.kill('SIGTERM');
  expect((await hanging.out).code).toBe(0);
  expect(Date.now() - at).toBeLessThan(5_000);

  const starting = run(`runProcess({ name: 't', start: (signal) => { console.log('starting'); setInterval(() => {}, 1000);
    return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))); } });`);
  let s2 = '';
  starting.child.stdout!.on('data', (d: Buffer) => (s2 += d.toString()));
  await waitFor(() => s2, 'starting');
  starting.child.kill('SIGTERM');
  expect((await starting.out).code).toBe(0);
});
