/**
 * Builds benchmark sessions of a given number of messages directly as session database files, with
 * the store's own schema and operations (appending 50,000 messages one turn at a time would take
 * minutes of fsyncs). The session is registered through the store, so it opens like any other.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isRepetitive, messageSampleText } from '../src/context/estimate-band';
import { messageParts } from '../src/context/message-tokens';
import { contentClassOfTexts } from '../src/context/safe-estimate';
import type { Message } from '../src/providers/types';
import { openStore } from '../src/store';
import { tuneDatabase } from '../src/store/db-space';
import { SESSION_MIGRATIONS } from '../src/store/schema';
import { applySessionOp } from '../src/store/session-ops';
import { loadSqlJs } from '../src/store/sqljs';

export const WASM = require.resolve('sql.js/dist/sql-wasm.wasm');

/** A realistic turn: user prompt, assistant text + tool call, and a ~2 KB inline tool result. */
export function turn(i: number, t = Date.now()): Message[] {
  return [
    {
      role: 'user',
      content: [{ type: 'text', text: `Please look at module ${i} and fix the failing test. ${'context '.repeat(40)}` }],
      timestamp: t,
    },
    {
      role: 'assistant',
      provider: 'anthropic',
      model: 'claude-bench',
      stopReason: 'toolUse',
      timestamp: t,
      usage: { input: 1200, output: 300, cacheRead: 9000, cacheWrite: 0 },
      content: [
        { type: 'text', text: `Reading the file. ${'reasoning '.repeat(60)}` },
        { type: 'toolCall', id: `call_${i}`, name: 'read_file', arguments: { path: `src/m${i}.ts` } },
      ],
    },
    {
      role: 'toolResult',
      toolCallId: `call_${i}`,
      toolName: 'read_file',
      isError: false,
      timestamp: t,
      content: [{ type: 'text', text: `export function m${i}() {\n` + 'const x = 1;\n'.repeat(160) + '}\n' }],
    },
  ];
}

/**
 * Creates a store at `root` holding one session of `messages` messages (whole turns of `turn`), the
 * older ones compacted behind a snapshot so that the context view is the snapshot plus the last 200
 * messages, as in a long session that compacts (`compacted: false`: no snapshot, the whole session is
 * the context). Each message is stored with a token count (`tokensOf`, default bytes/4 under a
 * made-up hash) of `family` (default 'claude'), with its content class and repetitive flag. Returns
 * the session id. The store is closed.
 */
export async function buildSession(
  root: string,
  messages: number,
  options: { compacted?: boolean; family?: string; tokensOf?: (message: Message) => { tokens: number; hash: string } } = {},
): Promise<string> {
  const store = await openStore({ root, wasmPath: WASM });
  const id = (await store.sessions.create(`${messages} messages`)).id;
  await store.close();
  const SQL = await loadSqlJs(WASM);
  const db = new SQL.Database();
  tuneDatabase(db, true); // as the store creates a database (incremental vacuum)
  db.exec('CREATE TABLE IF NOT EXISTS headroom_meta (key TEXT PRIMARY KEY, value)');
  for (const m of SESSION_MIGRATIONS) m(db);
  db.exec(`PRAGMA user_version = ${SESSION_MIGRATIONS.length}`);
  db.exec('BEGIN');
  let seq = 0;
  let rec = 0;
  const t0 = Date.now() - messages * 1000;
  for (let i = 0; seq < messages; i++) {
    const at = t0 + seq * 1000;
    const msgs = turn(i, at).slice(0, messages - seq);
    applySessionOp(db, {
      op: 'turn',
      seq: ++rec,
      sessionId: id,
      turn: i + 1,
      at,
      messages: msgs.map((message) => {
        const json = JSON.stringify(message);
        const counted = options.tokensOf?.(message) ?? { tokens: Math.ceil(json.length / 4), hash: `h${seq + 1}` };
        return {
          seq: ++seq,
          message: message as unknown as Record<string, unknown>,
          tokens: counted.tokens,
          hash: counted.hash,
          bytes: Buffer.byteLength(json),
          family: options.family ?? 'claude',
          exact: true,
          cls: contentClassOfTexts(messageParts(message).texts),
          repetitive: isRepetitive(messageSampleText(message)),
        };
      }),
    });
  }
  const summary: Message = {
    role: 'user',
    content: [{ type: 'text', text: `Summary of the conversation so far. ${'decision '.repeat(400)}` }],
    timestamp: t0,
  };
  if (options.compacted !== false)
    applySessionOp(db, {
      op: 'snapshot',
      seq: ++rec,
      sessionId: id,
      id: 'snap_00000000000000000001',
      kind: 'compaction',
      at: Date.now() - 1000,
      throughSeq: Math.max(0, messages - 200),
      messages: [summary as unknown as Record<string, unknown>],
      tokens: 1200,
      description: null,
      summary: 'bench',
      windowStart: t0,
      windowEnd: Date.now(),
    });
  db.run("INSERT INTO headroom_meta (key, value) VALUES ('journal_seq', ?)", [rec]);
  db.exec('COMMIT');
  mkdirSync(join(root, 'sessions'), { recursive: true });
  writeFileSync(join(root, 'sessions', `${id}.sqlite`), db.export());
  db.close();
  // Let the store bring it to its own layout (older messages sealed into segments), as a session
  // that grew turn by turn would be.
  const settled = await openStore({ root, wasmPath: WASM });
  await settled.sessions.load(id);
  await settled.sessions.settle();
  await settled.close();
  return id;
}
