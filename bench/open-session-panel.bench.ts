// figures: open_session_panel_50k_ms open_session_panel_50k_kb open_session_panel_50k_uncompacted_kb
/**
 * Opening a long session for the panel: the store opens, the context view is read (for the
 * model), and the panel's presenter turns the stored transcript's newest page, with its compactions
 * placed, into the first page of items; the figure is the time until that
 * `session/snapshot` is ready to post (median of 3 fresh opens of a 50,000-message session that
 * compacts, as `open_session_50k_ms` in store.bench.ts), and `_kb` its size as posted. The
 * `_uncompacted_kb` figure is the same message for a 50,000-message session that never compacted
 * (its whole history is the context view): the page, not the session, sets its size.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storedTranscript } from '../src/app/stored-transcript';
import { errorStack } from '../src/common/errors';
import { storedCompaction } from '../src/context/compaction';
import { ChatPresenter } from '../src/panel/chat-presenter';
import { messagesToItems } from '../src/panel/transcript-items';
import type { HostToWebview } from '../src/protocol/messages';
import { openStore } from '../src/store';
import { loadSqlJs } from '../src/store/sqljs';
import { buildSession, WASM } from './store-session-fixture';
import { median, r3, report } from './util';

const MESSAGES = 50_000;

/** Opens the session as the extension does and returns the time to a ready snapshot and its size. */
async function openForPanel(root: string, id: string): Promise<{ ms: number; bytes: number; items: number; wholeBytes: number }> {
  const t0 = performance.now();
  const store = await openStore({ root, wasmPath: WASM });
  const view = await store.sessions.contextView(id);
  // As the extension reopens a session: the stored transcript's newest page, with its compactions placed.
  const [records, stored] = await Promise.all([store.sessions.listCompactions(id), storedTranscript(store.sessions, id)]);
  const presenter = new ChatPresenter(() => {});
  presenter.load(view.messages, { compactions: records.reverse().map(storedCompaction), newestUndoable: false, stored });
  const snapshot = presenter.view();
  const json = JSON.stringify({ type: 'session/snapshot', snapshot } satisfies Pick<HostToWebview, 'type'> & { snapshot: unknown });
  const ms = performance.now() - t0;
  await store.close();
  // For the record: what posting the whole context view as items (before paging) would have cost.
  const wholeBytes = Buffer.byteLength(JSON.stringify(messagesToItems(view.messages)));
  const last = snapshot.items.at(-1);
  // Measured something: a page of items, ending with the session's newest message, more before it.
  if (snapshot.items.length < 20 || !last || !snapshot.hasOlder) throw new Error(`the panel got ${snapshot.items.length} items`);
  return { ms, bytes: Buffer.byteLength(json), items: snapshot.items.length, wholeBytes };
}

async function main(): Promise<void> {
  await loadSqlJs(WASM); // loaded at activation, not by opening a session
  const root = mkdtempSync(join(tmpdir(), 'headroom-open-panel-'));
  const flat = mkdtempSync(join(tmpdir(), 'headroom-open-panel-flat-'));
  try {
    const id = await buildSession(root, MESSAGES);
    const runs = [];
    for (let k = 0; k < 3; k++) runs.push(await openForPanel(root, id));
    report({
      bench: 'open_session_panel_50k_ms',
      value: r3(median(runs.map((r) => r.ms))),
      unit: 'ms',
      target: 300,
      better: 'lower',
      samples: runs.map((r) => r3(r.ms)),
      items: runs[0].items,
      messages: MESSAGES,
    });
    report({
      bench: 'open_session_panel_50k_kb',
      value: r3(runs[0].bytes / 1024),
      unit: 'KB',
      target: 512,
      better: 'lower',
      items: runs[0].items,
      messages: MESSAGES,
    });
    const flatId = await buildSession(flat, MESSAGES, { compacted: false });
    const whole = await openForPanel(flat, flatId);
    report({
      bench: 'open_session_panel_50k_uncompacted_kb',
      value: r3(whole.bytes / 1024),
      unit: 'KB',
      target: 512,
      better: 'lower',
      openMs: r3(whole.ms),
      wholeViewKb: r3(whole.wholeBytes / 1024),
      items: whole.items,
      messages: MESSAGES,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(flat, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(errorStack(err) + '\n');
  process.exit(1);
});
