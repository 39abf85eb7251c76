import assert from 'node:assert/strict';
import { join } from 'node:path';
import { loadEncoding } from '../../src/context/encoder';
import { TokenLedger } from '../../src/context/token-ledger';
import { TokenWorkerClient } from '../../src/context/token-worker-client';
import { estimateText } from '../../src/context/message-tokens';
import { minifiedLine, user } from '../fixtures/context/factories';

const workerPath = join(__dirname, '..', '..', 'src', 'context', 'token-worker.ts');
/** Runs the TypeScript source in the worker (tsx's ESM hooks from `--import tsx` do not reach a worker's main module on node 20). */
const tsxArgv = ['--require', 'tsx/cjs'];

describe('context token worker', function () {
  this.timeout(60_000);
  let client: TokenWorkerClient;
  afterEach(() => client?.dispose());

  it('loads off the main thread, reports ready, and counts like the in-process counter', async () => {
    client = new TokenWorkerClient({ workerPath, execArgv: tsxArgv });
    const readyEvents: number[] = [];
    client.onDidBecomeReady((e) => readyEvents.push(e.loadMs));
    assert.equal(await client.whenReady(), true);
    assert.equal(client.isReady, true);
    assert.equal(readyEvents.length, 1);
    const texts = ['hello world', '漢字'.repeat(3000), minifiedLine(20_000), ''];
    const counts = await client.countTexts('o200k', texts);
    const { counter } = await loadEncoding('o200k_base');
    assert.deepEqual(
      counts.map((c) => c.tokens),
      texts.map((t) => counter.count(t)),
    );
    assert.ok(counts.every((c) => c.source === 'tokenizer'));
  });

  it('answers requests sent before it is ready', async () => {
    client = new TokenWorkerClient({ workerPath, execArgv: tsxArgv });
    const ledger = new TokenLedger(client);
    const m = user('counted as soon as the ranks are loaded');
    assert.equal(ledger.count(m, 'o200k').exact, false);
    const c = await ledger.countExact(m, 'o200k');
    assert.equal(c.exact, true);
    ledger.dispose();
  });

  it('falls back to byte estimates when the worker cannot start', async () => {
    const errors: string[] = [];
    client = new TokenWorkerClient({ workerPath: join(__dirname, 'no-such-worker.js'), onError: (e) => errors.push(e) });
    assert.equal(await client.whenReady(), false);
    const counts = await client.countTexts('o200k', ['abcdefgh']);
    assert.deepEqual(counts, [estimateText('abcdefgh')]);
    assert.equal(counts[0].source, 'bytes');
    assert.ok(errors.length >= 1);
  });

  it('resolves pending requests with estimates when disposed', async () => {
    client = new TokenWorkerClient({ workerPath, execArgv: tsxArgv });
    const p = client.countTexts('o200k', ['some text']);
    client.dispose();
    const [c] = await p;
    assert.equal(c.source, 'bytes');
  });
});
