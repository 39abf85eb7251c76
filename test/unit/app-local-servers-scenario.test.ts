import assert from 'node:assert/strict';
import { LOCAL_MODEL, LOCAL_SCENARIOS, runLocalScenario, sentUnder, within, type ScenarioRun } from '../fixtures/app/local-scenarios';

/**
 * Local servers as they really behave (JIT loading, old defaults, another client's context, a count
 * without the cached prefix, a refusing server, servers that count a prompt before it is sent), each counting with a SentencePiece tokenizer Headroom
 * does not estimate with: six turns of large Chinese, log, minified and base64 reads through the
 * session service. Nothing is sent over the server's real context, nothing is cut without a word, and
 * the meter is within 5 % of the server's own count after at least 5 of the 6 turns.
 */
describe('session service: local servers as they really behave', function () {
  this.timeout(900_000);
  const runs = new Map<string, ScenarioRun>();

  for (const scenario of LOCAL_SCENARIOS) {
    it(`${scenario.name}: 0 requests over its context, 0 cut, the meter within 5 % after ≥ 5 of 6 turns`, async () => {
      const run = await runLocalScenario(scenario);
      runs.set(scenario.key, run);
      const figures = run.turns.map((t) => `${t.meter}/${t.truth} (${t.window})`).join(', ');
      assert.deepEqual(
        run.turns.map((t) => t.over),
        [0, 0, 0, 0, 0, 0],
        'requests over the context the server ran them with',
      );
      assert.deepEqual(
        run.turns.map((t) => t.truncated),
        [0, 0, 0, 0, 0, 0],
        'requests the server cut without a word',
      );
      assert.ok(run.turns.filter((t) => within(t)).length >= 5, `meter / true count after each turn: ${figures}`);
      // A compaction inside a turn is saved with the view it made, not the array the turn went on appending to.
      assert.deepEqual(
        run.warnings.filter((l) => /could not be saved/.test(l)),
        [],
        'every compaction was saved',
      );
    });
  }

  it('each server was asked the right way: the loaded context, not a maximum, a default or another client’s', () => {
    const windows = (key: string) => runs.get(key)?.turns.map((t) => t.window);
    assert.deepEqual(windows('lmstudio_jit'), [4096, 8192, 8192, 8192, 8192, 8192], 'small until JIT loading, then what was loaded');
    assert.deepEqual(windows('ollama_05'), Array(6).fill(2048));
    assert.deepEqual(windows('ollama_other_client'), Array(6).fill(32_768), 'the loaded context, kept by asking for it');
    assert.deepEqual(windows('llamacpp'), Array(6).fill(8192));
    assert.deepEqual(windows('vllm'), Array(6).fill(8192));
  });

  it('llama.cpp and vLLM count each turn before it is sent: no request goes out with the meter over 5 % under their count', () => {
    for (const key of ['llamacpp', 'vllm']) {
      const run = runs.get(key);
      assert.ok(run, `${key} ran`);
      const sent = run.turns.flatMap((t) => t.sent.map((s) => `${s.meter}/${s.server}`)).join(', ');
      assert.deepEqual(
        run.turns.map((t) => sentUnder(t)),
        [0, 0, 0, 0, 0, 0],
        `${key}: the meter as each request went out / the server's count of it: ${sent}`,
      );
      assert.ok(
        run.turns.every((t) => t.counted > 0),
        `${key}: prompts the server counted per turn: ${run.turns.map((t) => t.counted).join(', ')}`,
      );
    }
  });

  it('a vLLM server whose /tokenize says a prompt is a twentieth of its size: the count is not used, and nothing goes over', async () => {
    const run = await runLocalScenario({
      key: 'vllm_undercounting',
      name: 'vLLM, /tokenize answering a twentieth',
      server: { tokenizer: 'sentencepiece', flavour: 'vllm', windows: { [LOCAL_MODEL]: 8192 }, local: { tokenizeScale: 0.05 } },
    });
    const figures = run.turns.map((t) => `${t.meter}/${t.truth}`).join(', ');
    assert.ok(
      run.turns.some((t) => t.counted > 0),
      'the server was asked',
    );
    assert.deepEqual(
      run.turns.map((t) => t.over),
      [0, 0, 0, 0, 0, 0],
      'requests over the context',
    );
    assert.ok(run.turns.filter((t) => within(t)).length >= 5, `meter / true count after each turn: ${figures}`);
    // Taken as the truth, the lie showed the meter at about half the prompt as it went out (a safe estimate: 12 % under at worst).
    const sent = run.turns.flatMap((t) => t.sent.map((s) => `${s.meter}/${s.server}`)).join(', ');
    assert.deepEqual(
      run.turns.map((t) => sentUnder(t, 0.25)),
      [0, 0, 0, 0, 0, 0],
      `the meter as each request went out / the server's real count: ${sent}`,
    );
    assert.ok(
      run.log.some((l) => /count not used: the server counted \d+ tokens for \d+ characters/.test(l)),
      'the refused count is logged',
    );
  });
});
