import * as assert from 'node:assert/strict';
import { completeSlash, parseComposer } from '../../webview-ui/slash';

describe('panel: slash commands in the composer', () => {
  it('parses /compact with and without focus, /clear, /new and /history', () => {
    assert.deepEqual(parseComposer('/compact'), { kind: 'compact' });
    assert.deepEqual(parseComposer('  /compact keep the parser work\nand tests '), {
      kind: 'compact',
      focus: 'keep the parser work\nand tests',
    });
    assert.deepEqual(parseComposer('/clear'), { kind: 'clear' });
    assert.deepEqual(parseComposer('/NEW'), { kind: 'new' });
    assert.deepEqual(parseComposer('/history'), { kind: 'history' });
  });

  it('sends anything else as a prompt, including paths and unknown commands', () => {
    assert.deepEqual(parseComposer('/usr/bin/env is missing'), { kind: 'prompt', text: '/usr/bin/env is missing' });
    assert.deepEqual(parseComposer('/deploy now'), { kind: 'prompt', text: '/deploy now' });
    assert.deepEqual(parseComposer('/clear the cache please'), { kind: 'prompt', text: '/clear the cache please' });
    assert.deepEqual(parseComposer('  \n '), { kind: 'empty' });
  });

  it('completes the command word only', () => {
    assert.deepEqual(
      completeSlash('/').map((c) => c.name),
      ['/compact', '/clear', '/new', '/history'],
    );
    assert.deepEqual(
      completeSlash('/c').map((c) => c.name),
      ['/compact', '/clear'],
    );
    assert.deepEqual(
      completeSlash('/com').map((c) => c.name),
      ['/compact'],
    );
    assert.deepEqual(completeSlash('/compact '), []);
    assert.deepEqual(completeSlash('hello /c'), []);
  });
});
