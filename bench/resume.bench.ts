/**
 * Resuming a long session: a session whose context holds ~1M tokens of messages, each
 * stored with its exact count, is opened the way the panel opens it (context view, the ledger seeded
 * from the stored counts) and measured by the context gate. The figure is the time from the opened
 * view to the first meter figure, which must already be exact: nothing is hashed or recounted.
 * `openMs` (reading the view from the store) is reported beside it. Built in a temp folder under
 * os.tmpdir() and removed afterwards.
 */
// figures: resume_meter_1m_tokens_ms
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContextGate } from '../src/agent/context-gate';
import { errorStack } from '../src/common/errors';
import { resolveModelLimits, type TokenizerFamily } from '../src/context/models';
import { TokenLedger } from '../src/context/token-ledger';
import { openStore } from '../src/store';
import { buildSession, WASM } from './store-session-fixture';
import { median, r3, report } from './util';

const TARGET_TOKENS = 1_000_000;
/** A realistic turn (`turn`) is about 3.3 KB of JSON: ~830 tokens at 4 bytes a token. */
const MESSAGES = 3 * Math.ceil(TARGET_TOKENS / 830);

async function main(): Promise<void> {
  const limits = resolveModelLimits('claude-sonnet-4-5', 'anthropic');
  const family: TokenizerFamily = limits.family;
  const root = mkdtempSync(join(tmpdir(), 'headroom-bench-resume-'));
  try {
    // Stored hashes are made up: only the seeded message objects can find their counts.
    const id = await buildSession(root, MESSAGES, { compacted: false, family });
    const samples: number[] = [];
    const opens: number[] = [];
    const seeds: number[] = [];
    let tokens = 0;
    let contextMessages = 0;
    for (let run = 0; run < 9; run++) {
      const store = await openStore({ root, wasmPath: WASM });
      const t0 = performance.now();
      const view = await store.sessions.contextView(id);
      const t1 = performance.now();
      const ledger = new TokenLedger(); // no tokenizer: a count missing from the store would stay an estimate
      ledger.seed(view.counts);
      const tSeed = performance.now();
      const usage = createContextGate({ limits, ledger }).measure(view.messages);
      const t2 = performance.now();
      seeds.push(tSeed - t1);
      await store.close();
      const total = ledger.total(view.messages, family);
      if (!total.exact)
        throw new Error(`the first meter after resume was not exact: ${total.pending} of ${view.messages.length} messages estimated`);
      opens.push(t1 - t0);
      samples.push(t2 - t1);
      tokens = total.tokens;
      contextMessages = view.messages.length;
      if (usage.used < total.tokens) throw new Error('the meter shows less than the stored counts');
    }
    report({
      bench: 'resume_meter_1m_tokens_ms',
      value: r3(median(samples)),
      unit: 'ms',
      target: 5,
      better: 'lower',
      seedMs: r3(median(seeds)),
      openMs: r3(median(opens)),
      contextTokens: tokens,
      contextMessages,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(errorStack(err) + '\n');
  process.exit(1);
});
