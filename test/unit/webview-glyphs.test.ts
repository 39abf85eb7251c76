import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The panel's symbols must render in the fonts VS Code's UI uses, without an emoji font: the media
 * controls of Miscellaneous Technical (⏸ ⏯ ⏹ …, U+23E9–U+23FA) and the emoji planes have no glyph in
 * DejaVu or Liberation (checked with `fc-list ':charset=23f8'`: no font on a stock Debian), so the
 * waiting status showed as an empty box.
 */
describe('webview glyphs', () => {
  it('uses no symbol that needs an emoji font', () => {
    const dir = join(__dirname, '..', '..', 'webview-ui');
    const found: string[] = [];
    for (const f of readdirSync(dir).filter((n) => /\.(ts|css)$/.test(n))) {
      for (const ch of readFileSync(join(dir, f), 'utf8')) {
        const cp = ch.codePointAt(0)!;
        if ((cp >= 0x23e9 && cp <= 0x23fa) || cp >= 0x1f000) found.push(`${f}: ${ch} U+${cp.toString(16).toUpperCase()}`);
      }
    }
    assert.deepEqual(found, []);
  });
});
