import assert from 'node:assert/strict';
import { fitInstructions, isStandingInstruction } from '../../src/context/compaction/instructions';

describe('compaction: standing instructions are kept before turn-by-turn requests', () => {
  it('tells a standing instruction from a request for one turn', () => {
    for (const t of [
      'From now on, run the linter before committing.',
      'Never touch the migrations folder.',
      "Don't add new dependencies without asking.",
      'Always use tabs in this repo.',
      'Make sure every fix has a test.',
    ])
      assert.ok(isStandingInstruction(t), t);
    for (const t of ['turn 12: carry on with part 12 of the refactor', 'What does medium.txt say?', 'Read src/f0.ts again.'])
      assert.ok(!isStandingInstruction(t), t);
  });

  it('a tight budget drops old turn requests, never an early standing instruction (fidelity_instructions was 0.46)', () => {
    const list: string[] = [];
    for (let i = 0; i < 300; i++)
      list.push(
        i % 10 === 3
          ? `INSTR-${i}: from now on, run the linter before committing change ${i}`
          : `turn ${i}: carry on with part ${i} of the refactor`,
      );
    const fitted = fitInstructions(list, { budgetTokens: 1500 });
    const standing = list.filter((t) => t.startsWith('INSTR-'));
    assert.deepEqual(
      standing.filter((t) => !fitted.instructions.includes(t)),
      [],
      'every standing instruction is kept',
    );
    assert.ok(fitted.omitted > 0, 'some turn requests did not fit');
    assert.equal(fitted.instructions.length + fitted.omitted, list.length);
    // Kept in their original order, newest requests preferred among the rest.
    const order = fitted.instructions.map((t) => list.indexOf(t));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    assert.ok(fitted.instructions.includes(list[299]), 'the newest request is kept');
    assert.ok(!fitted.instructions.includes(list[0]), 'the oldest plain request gave way');
  });

  it('when even the standing instructions do not all fit, the newest of them are kept', () => {
    const list = Array.from({ length: 50 }, (_, i) => `Always remember rule ${i}: ${'keep it simple '.repeat(5)}`);
    const fitted = fitInstructions(list, { budgetTokens: 200 });
    assert.ok(fitted.omitted > 0);
    assert.ok(fitted.instructions.at(-1)!.startsWith('Always remember rule 49'));
  });
});
