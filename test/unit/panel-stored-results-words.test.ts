import * as assert from 'node:assert/strict';
import { compactionDetails } from '../../src/context/compaction/what-left';
import { messagesToItems } from '../../src/panel/transcript-items';
import { buildStub } from '../../src/tools/admission';
import { assistant, call, result, user } from './panel-factories';

/** A stored (offloaded) result is shown to people as what it was, never as the stub the model reads. */
describe('panel: stored results in words for people', () => {
  const output = 'FAIL src/parser.test.ts\n  ✕ parses a trailing comma\n' + 'x'.repeat(40_000);
  const stub = buildStub('run_command', output.length, output, 'res_0f3a9c2d');
  const messages = [
    user('run the tests'),
    assistant('Running them.', {}, [call('c1', 'run_command', { command: 'npm test' })]),
    result('c1', stub, { refId: 'res_0f3a9c2d', toolName: 'run_command', stored: { bytes: output.length, lines: 3 } }),
    assistant('One test fails.'),
  ];

  it("a stored result's card shows its first lines and Open, not read_result ref_id=…", () => {
    const tool = messagesToItems(messages).find((i) => i.kind === 'tool');
    assert.ok(tool?.kind === 'tool');
    assert.doesNotMatch(tool.output, /read_result|ref_id|Tool result stored/);
    assert.match(tool.output, /^FAIL src\/parser\.test\.ts\n {2}✕ parses a trailing comma/);
    assert.equal(tool.refId, 'res_0f3a9c2d', 'the card still opens the whole result');
  });

  it('"What left the context" names each stored result by its tool and target', () => {
    const details = compactionDetails({ before: messages, after: messages.slice(3), strategies: ['summary'], storedRefIds: [] });
    assert.deepEqual(details.stored, [{ refId: 'res_0f3a9c2d', toolName: 'run_command', target: 'npm test' }]);
  });
});
