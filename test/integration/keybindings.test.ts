import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import { activateHeadroom, EXTENSION_ID } from './helpers';

interface Keybinding {
  key: string;
  command: string;
  when?: string;
}

/** `ctrl+alt+h` and `alt+ctrl+h` are the same key: modifiers sorted, lower case. */
function normalized(press: string): string {
  const parts = press.toLowerCase().split('+');
  const key = parts.pop() ?? '';
  return [...parts.sort(), key].join('+');
}

/** The key presses of a binding (a chord is two). */
const presses = (key: string) => key.trim().split(/\s+/).map(normalized);

/**
 * The default keybindings for this platform, as "Open Default Keyboard Shortcuts (JSON)" shows them:
 * VS Code's own, its built-in extensions' and every installed extension's, Headroom's included.
 */
async function defaultKeybindings(): Promise<Keybinding[]> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('vscode://defaultsettings/keybindings.json'));
  // JSON with // comments (whole lines) and, in the unbound-commands tail, commented-out entries.
  const json = doc
    .getText()
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l))
    .join('\n');
  return JSON.parse(json.replace(/,\s*([\]}])/g, '$1')) as Keybinding[];
}

describe('contributed keybindings in a real VS Code', () => {
  it("clash with none of VS Code's default keybindings, and each has a when clause", async () => {
    await activateHeadroom();
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { keybindings: Keybinding[] } };
    const ours = manifest.contributes.keybindings;
    assert.ok(ours.length >= 7, 'focus, new session, stop, approve, reject, add selection and compact each have a key');
    // Our own contributions are in that list too: each would clash with itself.
    const ourCommands = new Set(ours.map((k) => k.command));
    const defaults = (await defaultKeybindings()).filter((d) => !ourCommands.has(d.command.replace(/^-/, '')));
    assert.ok(defaults.length > 300, `read VS Code's default keybindings (${defaults.length})`);
    if (process.env.HEADROOM_DUMP_KEYBINDINGS) writeFileSync(process.env.HEADROOM_DUMP_KEYBINDINGS, JSON.stringify(defaults, null, 1));
    // Every key is checked before the test fails, so one run names every clash, not only the first.
    const problems: string[] = [];
    for (const k of ours) {
      if (!k.when?.trim()) problems.push(`${k.command} (${k.key}) has no when clause`);
      const mine = presses(k.key);
      // A default on the same key, or a chord that starts with it (ours would swallow its first press).
      for (const d of defaults) {
        const theirs = presses(d.key);
        if (theirs[0] === mine[0] && (theirs.length === 1 || mine.length === 1 || theirs[1] === mine[1]))
          problems.push(`${k.key} for ${k.command} clashes with ${d.key} → ${d.command}`);
      }
    }
    assert.deepEqual(problems, [], "each key is free in VS Code's defaults and says when it applies");
  });
});
