import assert from 'node:assert/strict';
import { isRepetitive } from '../../src/context/estimate-band';

/** The definition, written plainly: over a head+tail sample, most characters repeat the one before, or at most 4 distinct. */
function reference(text: string): boolean {
  const s = text.length > 4096 ? text.slice(0, 2048) + text.slice(-2048) : text;
  if (s.length < 64) return false;
  let repeats = 0;
  for (let i = 1; i < s.length; i++) if (s[i] === s[i - 1]) repeats++;
  return repeats / s.length > 0.5 || new Set(s.split('')).size <= 4;
}

describe('context: repetitive text (the meter band class of rulers and padding)', () => {
  it('answers as the plain definition does on rulers, padding, small alphabets, prose and mixes', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const cases = [
      '='.repeat(5000),
      'abab'.repeat(100),
      'abcde'.repeat(100),
      'The quick brown fox jumps over the lazy dog. '.repeat(50),
      '-'.repeat(300) + ' title ' + '-'.repeat(300),
      'x'.repeat(40) + 'prose that is long enough to count as text on its own, with many letters',
      '日本語のテキスト'.repeat(30),
      '😀😀😀😀'.repeat(40),
      'short',
    ];
    for (let i = 0; i < 300; i++) {
      const alphabet = 'ab cdefgh-=\n'.slice(0, 1 + rand(12));
      let s = '';
      const len = 30 + rand(6000);
      while (s.length < len) s += alphabet[rand(alphabet.length)].repeat(1 + rand(rand(2) ? 2 : 40));
      cases.push(s);
    }
    for (const text of cases) assert.equal(isRepetitive(text), reference(text), JSON.stringify(text.slice(0, 60)));
    assert.ok(cases.some(isRepetitive) && !cases.every(isRepetitive), 'both answers occur');
  });
});
