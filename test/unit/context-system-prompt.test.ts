import * as assert from 'node:assert/strict';
import { buildSystemSections, MAX_RULES_BYTES } from '../../src/context/system-prompt';

describe('context: system prompt sections', () => {
  it('puts base instructions first and one cache breakpoint after the last stable section', () => {
    const s = buildSystemSections({ rules: [{ path: 'AGENTS.md', text: 'Use tabs.' }], workspaceName: 'ws' });
    assert.deepEqual(
      s.map((x) => x.id),
      ['base', 'rules'],
    );
    assert.deepEqual(
      s.map((x) => !!x.cacheBreakpoint),
      [false, true],
    );
    assert.match(s[0].text, /Workspace: ws/);
    assert.match(s[1].text, /## AGENTS\.md\nUse tabs\./);
  });

  it('has no rules section when no rules file has content, and still one breakpoint', () => {
    const s = buildSystemSections({ rules: [{ path: 'AGENTS.md', text: '  \n' }] });
    assert.deepEqual(
      s.map((x) => x.id),
      ['base'],
    );
    assert.equal(s[0].cacheBreakpoint, true);
  });

  it('cuts a huge rules file and says so', () => {
    const s = buildSystemSections({ rules: [{ path: 'big.md', text: 'x'.repeat(MAX_RULES_BYTES * 3) }] });
    assert.ok(Buffer.byteLength(s[1].text) < MAX_RULES_BYTES + 200);
    assert.match(s[1].text, /big\.md cut at 32768 of 98304 bytes/);
  });
});
