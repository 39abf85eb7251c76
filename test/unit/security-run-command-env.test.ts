/**
 * run_command: the host's secrets must not reach the command (it could print them into the
 * transcript, which goes to the provider), and a grandchild that escapes the process group with
 * `setsid` and holds stdout open must not stall the tool past its timeout.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runCommandTool } from '../../src/tools/builtin/run-command';
import { commandEnvironment } from '../../src/tools/command-env';
import { runShellCommand } from '../../src/tools/command-runner';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

/** Generous bound on top of the timeout: the machine is loaded, but a stall would be ~30 s. */
const SLACK_MS = 8_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean | Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('security: run_command environment and process tree', function () {
  this.timeout(60_000);
  let root: string;
  const saved: Record<string, string | undefined> = {};
  const planted = {
    OPENAI_API_KEY: 'sk-planted-openai',
    GITHUB_TOKEN: 'ghp_planted',
    MY_DB_PASSWORD: 'hunter2',
    DATABASE_URL: 'postgres://app:s3cret@db/app',
    HEADROOM_TEST_PLAIN: 'plain-value',
  };

  before(async () => {
    root = await tempWorkspace({ 'a.txt': 'a' });
    for (const [k, v] of Object.entries(planted)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  after(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await removeDir(root);
  });

  it('commandEnvironment keeps only the base names and the allow-list', () => {
    const { env, removed } = commandEnvironment(
      { ...planted, PATH: '/bin', HOME: '/home/u', NPM_TOKEN: 'npm_x', AWS_SECRET_ACCESS_KEY: 'x' },
      ['npm_token'],
      'linux',
    );
    assert.deepEqual(removed, [
      'AWS_SECRET_ACCESS_KEY',
      'DATABASE_URL',
      'GITHUB_TOKEN',
      'HEADROOM_TEST_PLAIN',
      'MY_DB_PASSWORD',
      'OPENAI_API_KEY',
    ]);
    assert.deepEqual(env, { PATH: '/bin', HOME: '/home/u', NPM_TOKEN: 'npm_x' });
  });

  it('OPENAI_API_KEY and other secrets are not visible to the command', async () => {
    const r = await runCommandTool.invoke(call('run_command', { command: 'env' }), makeContext(root));
    const text = resultText(r);
    assert.equal(r.isError, false, text);
    assert.doesNotMatch(text, /HEADROOM_TEST_PLAIN/, 'only allow-listed variables are passed');
    assert.match(text, /PATH=/);
    for (const secret of ['sk-planted-openai', 'ghp_planted', 'hunter2', 's3cret']) assert.ok(!text.includes(secret), `${secret} leaked`);
  });

  it('an allow-listed variable is passed', async () => {
    const ws = createNodeWorkspace(root, { commandEnvAllowList: ['GITHUB_TOKEN'] });
    const r = await ws.runCommand('echo "[$GITHUB_TOKEN][$OPENAI_API_KEY]"', { timeoutMs: 10_000 });
    assert.equal(r.output.trim(), '[ghp_planted][]');
  });

  it('returns at its timeout although a setsid grandchild holds stdout open, and kills that grandchild', async function () {
    if (process.platform === 'win32') this.skip();
    const pidFile = path.join(root, 'grandchild.pid');
    const started = Date.now();
    const r = await runShellCommand(`setsid sh -c 'echo $$ > ${pidFile}; sleep 30' & echo started; sleep 30`, {
      cwd: root,
      timeoutMs: 1_000,
    });
    const ms = Date.now() - started;
    assert.equal(r.timedOut, true);
    assert.match(r.output, /started/);
    assert.ok(ms < 1_000 + SLACK_MS, `returned after ${ms} ms`);
    const pid = Number((await fs.readFile(pidFile, 'utf8')).trim());
    assert.ok(pid > 0);
    await waitFor(() => !alive(pid), `grandchild ${pid} to die`);
  });

  it('returns soon after the shell exits when a detached grandchild keeps stdout open', async function () {
    if (process.platform === 'win32') this.skip();
    const pidFile = path.join(root, 'daemon.pid');
    const started = Date.now();
    const r = await runShellCommand(`setsid sh -c 'echo $$ > ${pidFile}; sleep 30' & echo done`, { cwd: root, timeoutMs: 30_000 });
    const ms = Date.now() - started;
    assert.equal(r.timedOut, false);
    assert.equal(r.exitCode, 0);
    assert.match(r.output, /done/);
    assert.ok(ms < SLACK_MS, `returned after ${ms} ms, not at the grandchild's 30 s`);
    await waitFor(async () => (await fs.readFile(pidFile, 'utf8').catch(() => '')).trim() !== '', 'the pid file');
    const pid = Number((await fs.readFile(pidFile, 'utf8')).trim());
    if (alive(pid)) process.kill(pid, 'SIGKILL'); // the test's own clean-up
  });

  it('still collects all the output of a command that exits normally', async () => {
    const r = await runShellCommand('seq 1 200000', { cwd: root, timeoutMs: 30_000 });
    assert.equal(r.exitCode, 0);
    const lines = r.output.trim().split('\n');
    assert.equal(lines.length, 200000);
    assert.equal(lines[lines.length - 1], '200000');
  });

  it('an abort returns promptly with a setsid grandchild too', async function () {
    if (process.platform === 'win32') this.skip();
    const controller = new AbortController();
    const started = Date.now();
    const running = runShellCommand(`setsid sh -c 'sleep 30' & echo go; sleep 30`, {
      cwd: root,
      timeoutMs: 60_000,
      signal: controller.signal,
      onOutput: () => controller.abort(),
    });
    const r = await running;
    assert.equal(r.aborted, true);
    assert.ok(Date.now() - started < SLACK_MS);
  });
});
