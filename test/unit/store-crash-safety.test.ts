import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { cleanup, open, tempRoot, texts, turnMessages } from '../fixtures/store/helpers';

const WRITER_SOURCE = join(__dirname, '../fixtures/store/crash-writer.ts');
/** The writer bundled once to plain JavaScript: 50 children each compiling TypeScript on start took minutes on a loaded machine. */
const WRITER = join(__dirname, '../../out/test-bin/crash-writer.js');
const TRIALS = 50;

interface TrialResult {
  sessionId: string | undefined;
  lastFlushed: number;
  results: Array<{ refId: string; turn: number }>;
  exitSignal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the writer and SIGKILLs it right after it reports turn `killAfter` durable (-1: right after it is ready). */
function runWriter(root: string, sessionId: string | undefined, killAfter: number, jitterMs: number): Promise<TrialResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, root, sessionId ?? '-', '200'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const res: TrialResult = { sessionId, lastFlushed: -1, results: [], exitSignal: null, stderr: '' };
    let buf = '';
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      const t = setTimeout(() => child.kill('SIGKILL'), jitterMs);
      t.unref();
    };
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const [word, a, b] = line.split(' ');
        if (word === 'session') res.sessionId = a;
        if (word === 'ready' && killAfter < 0) kill();
        if (word === 'flushed') {
          res.lastFlushed = Number(a);
          if (Number(a) >= killAfter && killAfter >= 0) kill();
        }
        if (word === 'result') res.results.push({ refId: a, turn: Number(b) });
      }
    });
    child.stderr.on('data', (d: Buffer) => (res.stderr += d.toString()));
    // A writer that neither finishes nor reaches its kill point within a minute is hung: fail the trial.
    const hung = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the writer hung (last durable turn ${res.lastFlushed})`));
    }, 60_000);
    child.on('error', reject);
    child.on('exit', (_code, signal) => {
      clearTimeout(hung);
      res.exitSignal = signal;
      resolve(res);
    });
  });
}

describe('store crash safety', function () {
  // Fifty child processes take seconds each on a loaded machine; each trial has its own hang guard
  // (a minute per writer), so the suite waits on the children's exits rather than on a total time.
  this.timeout(0);
  before(() => {
    buildSync({
      entryPoints: [WRITER_SOURCE],
      outfile: WRITER,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
  });

  it(`keeps every reported write and only a prefix of writes across ${TRIALS} SIGKILLs`, async () => {
    const root = tempRoot();
    try {
      let sessionId: string | undefined;
      let everFlushed = -1; // highest turn index ever reported durable
      const reportedResults: Array<{ refId: string; turn: number }> = [];
      let killedTrials = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        // Kill at a random point of the next 200 turns, sometimes before the first one.
        const killAfter = trial % 10 === 0 ? -1 : Math.floor(Math.random() * 60);
        const r = await runWriter(root, sessionId, killAfter, Math.floor(Math.random() * 4));
        assert.equal(r.stderr.trim(), '', `writer failed: ${r.stderr}`);
        if (r.exitSignal === 'SIGKILL') killedTrials++;
        sessionId ??= r.sessionId;
        everFlushed = Math.max(everFlushed, r.lastFlushed);
        reportedResults.push(...r.results);

        const store = await open(root);
        try {
          assert.equal(store.readOnly, false, 'a dead writer must not hold the lock');
          assert.deepEqual(
            store.problems.filter((p) => p.kind === 'corrupt'),
            [],
            'no file may be corrupt after a crash',
          );
          if (!sessionId) continue; // killed before the session was created
          const transcript = await store.sessions.transcript(sessionId);
          const n = transcript.length / 2;
          assert.ok(Number.isInteger(n), 'a turn is stored whole or not at all');
          assert.ok(n >= everFlushed + 1, `trial ${trial}: ${n} turns on disk but turn ${everFlushed} was reported durable`);
          const expected = Array.from({ length: n }, (_, i) => turnMessages(i)).flat();
          assert.deepEqual(texts(transcript.map((m) => m.message)), texts(expected), `trial ${trial}: not a prefix of the writes`);
          assert.deepEqual(
            transcript.map((m) => m.seq),
            transcript.map((_, i) => i + 1),
          );
          assert.equal(store.sessions.get(sessionId).messageCount, transcript.length);
          for (const res of reportedResults) {
            assert.equal(await store.results.read(res.refId), `output of turn ${res.turn}\n`.repeat(50));
          }
        } finally {
          await store.close();
        }
      }
      assert.ok(killedTrials >= TRIALS * 0.9, `only ${killedTrials} of ${TRIALS} writers were actually killed`);
    } finally {
      cleanup(root);
    }
  });
});
