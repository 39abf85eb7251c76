/**
 * A command the model runs gets an allow-listed environment and cannot read the host's. Before, a
 * deny-list let 18 of 31 common secret-looking variables through (`REDIS_URL` with a password,
 * `MYSQL_PWD`, `SENTRY_DSN`, `SLACK_WEBHOOK_URL`, `GH_PAT`, `DB_PASS`, `STRIPE_SK`, `CI_JOB_JWT`, a
 * `?password=` URL…), and `cat /proc/$PPID/environ` printed the host's own environment.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as path from 'node:path';
import { runCommandTool } from '../../src/tools/builtin/run-command';
import { commandEnvironment } from '../../src/tools/command-env';
import { commandLauncher } from '../../src/tools/command-launcher';
import { createNodeWorkspace } from '../../src/tools/node-workspace';
import { call, makeContext, removeDir, resultText, tempWorkspace } from '../fixtures/tools/tool-context';

/** 31 common ways a secret sits in an environment, each value unique so a leak names itself. */
const SECRETS: Record<string, string> = Object.fromEntries(
  [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GITHUB_TOKEN',
    'GH_PAT',
    'NPM_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AZURE_CLIENT_SECRET',
    'GOOGLE_APPLICATION_CREDENTIALS_JSON',
    'DATABASE_URL',
    'REDIS_URL',
    'MONGO_URI',
    'MYSQL_PWD',
    'PGPASSWORD',
    'DB_PASS',
    'DB_PASSWD',
    'SENTRY_DSN',
    'SLACK_WEBHOOK_URL',
    'DISCORD_WEBHOOK',
    'STRIPE_SK',
    'STRIPE_SECRET',
    'CI_JOB_JWT',
    'VAULT_TOKEN',
    'DOCKER_AUTH_CONFIG',
    'SSH_AUTH_SOCK',
    'HEROKU_API_KEY',
    'TWILIO_AUTH_TOKEN',
    'SENDGRID_KEY',
    'JWT_SIGNING',
    'SMTP_URL',
    'APP_CONFIG',
  ].map((name, i) => [name, i === 30 ? `https://api.example/config?user=app&password=leak-${i}` : `leak-${i}-${name.toLowerCase()}`]),
);

describe('security: the command environment is an allow-list, and the host environment is out of reach', function () {
  this.timeout(60_000);
  let root: string;
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    root = await tempWorkspace({ 'a.txt': 'a' });
    for (const [k, v] of Object.entries({ ...SECRETS, LC_ALL: 'C.UTF-8', TERM: 'xterm-256color', JAVA_HOME: '/opt/jdk' })) {
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

  it('passes none of 31 common secret-looking variables to the command', async () => {
    const r = await runCommandTool.invoke(call('run_command', { command: 'env' }), makeContext(root));
    const text = resultText(r);
    assert.equal(r.isError, false, text);
    const leaked = Object.entries(SECRETS).filter(([, v]) => text.includes(v));
    assert.deepEqual(
      leaked.map(([k]) => k),
      [],
    );
    for (const kept of ['PATH=', 'HOME=', 'LC_ALL=C.UTF-8', 'TERM=xterm-256color']) assert.ok(text.includes(kept), kept);
  });

  it("passes the user's own allow-list, by name or by prefix", async () => {
    const ws = createNodeWorkspace(root, { commandEnvAllowList: ['java_home', 'STRIPE_*'] });
    const r = await ws.runCommand('echo "[$JAVA_HOME][$STRIPE_SK][$GH_PAT]"', { timeoutMs: 10_000 });
    assert.equal(r.output.trim(), `[/opt/jdk][${SECRETS.STRIPE_SK}][]`);
    const { removed } = commandEnvironment({ PATH: '/bin', X: '1', SystemRoot: 'C:\\Windows' }, [], 'win32');
    assert.deepEqual(removed, ['X'], 'Windows keeps what its programs need to start');
  });

  it("cannot read the host process's environment through /proc", async function () {
    if (process.platform !== 'linux') this.skip(); // no /proc: the allow-list is the defence
    const launcher = await commandLauncher();
    if (!launcher) {
      // Documented fallback (command-launcher.ts): this system has no unprivileged PID namespaces.
      console.warn('      (skipped: no unprivileged PID namespace on this system)');
      this.skip();
    }
    const host = path.join(__dirname, '..', 'fixtures', 'tools', 'command-host.ts');
    const planted = 'sk-ant-PLANTED-IN-THE-HOST-ENVIRONMENT';
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', host, root, 'cat /proc/$PPID/environ; cat /proc/$HOST_PID/environ'],
      { env: { ...process.env, ANTHROPIC_API_KEY: planted }, timeout: 45_000 },
    );
    const { output } = JSON.parse(stdout) as { output: string };
    assert.ok(!output.includes(planted), output);
    assert.match(output, /No such file or directory/, 'the host has no /proc entry in the command’s view');
  });
});
