/**
 * A long session that compacted as a real one does, for the store benches: the messages written
 * directly (`buildSession`), then every ~130 messages a compaction recorded through the store's public
 * API — its snapshot the summary so far and the last ~18 turns kept verbatim (~60 KB, each message with
 * the count it was saved with), its record and "what left" report.
 */
import { messageHash } from '../src/context/message-tokens';
import type { Message } from '../src/providers/types';
import { openStore } from '../src/store';
import { buildSession, turn, WASM } from './store-session-fixture';

export const MESSAGES_PER_COMPACTION = 130;
const KEPT_TURNS = 18;

/** Builds the session at `root` and returns its id; the store is closed. */
export async function buildCompactedSession(root: string, messages: number, count: number): Promise<string> {
  const id = await buildSession(root, messages, { compacted: false });
  await compact(root, id, messages, count);
  return id;
}

/** Records `count` compactions spread over the session's `messages` messages, oldest first. */
async function compact(root: string, id: string, messages: number, count: number): Promise<void> {
  const store = await openStore({ root, wasmPath: WASM });
  for (let k = 0; k < count; k++) {
    const throughSeq = Math.round(((k + 1) * messages) / (count + 1));
    const lastTurn = Math.floor(throughSeq / 3);
    const summary: Message = {
      role: 'user',
      content: [{ type: 'text', text: `Summary of the conversation so far (${k}). ${'decision and fact '.repeat(300)}` }],
      timestamp: Date.now(),
    };
    const kept = Array.from({ length: KEPT_TURNS }, (_, j) => turn(lastTurn - KEPT_TURNS + j)).flat();
    const view = [summary, ...kept];
    const counts = view.map((m) => ({
      hash: messageHash(m),
      family: 'claude',
      tokens: Math.ceil(JSON.stringify(m).length / 3),
      exact: true,
    }));
    await store.sessions.recordCompaction(id, {
      beforeTokens: 150_000,
      afterTokens: 45_000,
      beforeMessages: view.length + MESSAGES_PER_COMPACTION,
      afterMessages: view.length,
      strategies: ['clear_results', 'summary'],
      summary: `summary ${k}`,
      firstKeptSeq: Math.max(1, throughSeq - KEPT_TURNS * 3 + 1),
      durationMs: 1800,
      report: {
        v: 1,
        trigger: 'auto',
        kept: `${KEPT_TURNS} turns`,
        details: { cleared: Array.from({ length: 12 }, (_, i) => `res_${String(i).padStart(16, '0')}`) },
      },
      snapshot: { messages: view, counts, tokens: 45_000, throughSeq },
    });
  }
  await store.sessions.settle();
  await store.close();
}
