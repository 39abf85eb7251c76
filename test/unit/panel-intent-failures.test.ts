import * as assert from 'node:assert/strict';
import { intentFailure } from '../../src/panel/intent-failures';

describe('panel: a failed action is reported in the user’s words', () => {
  it('says what the user tried and why, without protocol names', () => {
    const text = intentFailure('compaction/undo', 'There is no compaction to undo.');
    assert.equal(text, 'Could not undo the compaction: There is no compaction to undo.');
    assert.doesNotMatch(text, /Handling|compaction\/undo|"/);
  });

  it('ends with one full stop, also for an empty reason', () => {
    assert.equal(intentFailure('session/open', 'not found...  '), 'Could not open the session: not found.');
    assert.equal(intentFailure('context/clear', ''), 'Could not clear the conversation.');
  });
});
