import { strict as assert } from 'node:assert';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { cleanup, tempRoot } from '../fixtures/store/helpers';

const RACER = join(__dirname, '../fixtures/store/lock-racer.ts');
// 300 rounds keep the unit suite short; HEADROOM_LOCK_ROUNDS=1000 (or more) for the full figure.
const ROUNDS = Number(process.env.HEADROOM_LOCK_ROUNDS ?? 300);
const PROCESSES = 4;
const PER_PROCESS = 3;

/** A child process running lock-racer.ts, with a way to wait for its next line starting with a word. */
function racer(): { child: ChildProcessWithoutNullStreams; next: (word: string) => Promise<string[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER]);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    waiters.splice(0).forEach((w) => w());
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.on('exit', () => waiters.splice(0).forEach((w) => w()));
  const next = async (word: string): Promise<string[]> => {
    for (;;) {
      const i = lines.findIndex((l) => l.startsWith(word + ' '));
      if (i >= 0) return lines.splice(i, 1)[0].split(' ').slice(1);
      if (child.exitCode !== null) throw new Error(`racer exited: ${stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { child, next };
}

describe('workspace lock races', function () {
  this.timeout(600_000);

  it(`gives a stale lock to exactly one of ${PROCESSES * PER_PROCESS} simultaneous acquirers in ${ROUNDS} rounds`, async () => {
    const root = tempRoot();
    const lockPath = join(root, 'store.lock');
    const racers = Array.from({ length: PROCESSES }, racer);
    let doubleOwners = 0;
    let noOwner = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // A lock left by a window that froze a minute ago (live pid, old heartbeat), written atomically.
        const stale = JSON.stringify({ pid: process.pid, host: hostname(), id: `stale${round}`, heartbeat: Date.now() - 60_000 });
        writeFileSync(`${lockPath}.next`, stale);
        renameSync(`${lockPath}.next`, lockPath);
        for (const r of racers) r.child.stdin.write(`go ${round} ${lockPath} ${PER_PROCESS}\n`);
        const owned = (await Promise.all(racers.map((r) => r.next('acquired')))).reduce((s, [, n]) => s + Number(n), 0);
        for (const r of racers) r.child.stdin.write(`verify ${round}\n`);
        const verified = (await Promise.all(racers.map((r) => r.next('verified')))).reduce((s, [, n]) => s + Number(n), 0);
        if (owned > 1 || verified > 1) doubleOwners++;
        if (verified === 0) noOwner++;
      }
    } finally {
      for (const r of racers) r.child.stdin.write('exit\n');
      await Promise.all(
        racers.map((r) => (r.child.exitCode === null ? new Promise((res) => r.child.once('exit', res)) : Promise.resolve())),
      );
      cleanup(root);
    }
    assert.equal(doubleOwners, 0, `${doubleOwners} of ${ROUNDS} rounds had two writers`);
    assert.equal(noOwner, 0, `${noOwner} of ${ROUNDS} rounds had no writer`);
  });
});
