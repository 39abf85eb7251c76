import type { Migration } from './journaled-db';

/**
 * Schemas of the two kinds of database file, as migrations (`PRAGMA user_version` = number applied).
 * Never edit a released migration; append a new one.
 */

/** The workspace index: session list, result metadata, calibration. Small whatever is stored. */
export const INDEX_MIGRATIONS: readonly Migration[] = [
  // v1: session list; result blobs stored inline.
  (db) => {
    db.exec(`
      CREATE TABLE sessions (id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL, message_count INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE tool_result_blobs (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, tool_name TEXT NOT NULL,
        content TEXT, byte_size INTEGER NOT NULL, created_at INTEGER NOT NULL);`);
  },
  // v2: result content moves to one file per blob (content stays NULL; legacy inline rows still read),
  // session byte totals, per-model calibration, refs held by each session's latest snapshot.
  (db) => {
    db.exec(`
      ALTER TABLE sessions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE tool_result_blobs ADD COLUMN file TEXT;
      ALTER TABLE tool_result_blobs ADD COLUMN line_count INTEGER;
      CREATE INDEX tool_result_blobs_age ON tool_result_blobs (created_at);
      CREATE INDEX tool_result_blobs_session ON tool_result_blobs (session_id);
      CREATE TABLE calibration (model TEXT PRIMARY KEY, factor REAL NOT NULL, samples INTEGER NOT NULL,
        updated_at INTEGER NOT NULL);
      CREATE TABLE snapshot_refs (session_id TEXT NOT NULL, ref_id TEXT NOT NULL, PRIMARY KEY (session_id, ref_id));
      UPDATE sessions SET bytes = (SELECT COALESCE(SUM(byte_size), 0) FROM tool_result_blobs b WHERE b.session_id = sessions.id);`);
  },
  // v3: files proven to be garbage (see index-ops.ts); nothing else is ever deleted as an orphan.
  (db) => {
    db.exec('CREATE TABLE doomed_files (file TEXT PRIMARY KEY, at INTEGER NOT NULL)');
  },
  // v4: what each session spent (tokens and dollars by kind, cache savings; JSON, see session-spend.ts),
  // so the history lists it without opening a session database. NULL: nothing recorded (older sessions).
  (db) => {
    db.exec('ALTER TABLE sessions ADD COLUMN spend TEXT');
  },
];

/** One session's database: its transcript, snapshots, compactions, clear marker and pins. */
export const SESSION_MIGRATIONS: readonly Migration[] = [
  // v1
  (db) => {
    db.exec(`
      CREATE TABLE messages (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, turn INTEGER NOT NULL,
        role TEXT NOT NULL, content TEXT NOT NULL, tokens INTEGER, created_at INTEGER NOT NULL);
      CREATE TABLE snapshots (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at INTEGER NOT NULL,
        through_seq INTEGER NOT NULL, messages TEXT NOT NULL, tokens INTEGER);
      CREATE TABLE compactions (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at INTEGER NOT NULL,
        before_tokens INTEGER NOT NULL, after_tokens INTEGER NOT NULL, before_messages INTEGER NOT NULL,
        after_messages INTEGER NOT NULL, strategies TEXT NOT NULL, summary TEXT, first_kept_seq INTEGER);
      CREATE TABLE markers (session_id TEXT PRIMARY KEY, cleared_at INTEGER NOT NULL, after_seq INTEGER NOT NULL);`);
  },
  // v2: content hashes and sizes, named snapshots (reference 004), compaction timing, pins.
  (db) => {
    db.exec(`
      ALTER TABLE messages ADD COLUMN content_hash TEXT;
      ALTER TABLE messages ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
      UPDATE messages SET bytes = length(CAST(content AS BLOB));
      CREATE INDEX messages_created ON messages (created_at);
      ALTER TABLE snapshots ADD COLUMN kind TEXT NOT NULL DEFAULT 'compaction';
      ALTER TABLE snapshots ADD COLUMN description TEXT;
      ALTER TABLE snapshots ADD COLUMN summary TEXT;
      ALTER TABLE snapshots ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE snapshots ADD COLUMN window_start INTEGER;
      ALTER TABLE snapshots ADD COLUMN window_end INTEGER;
      UPDATE snapshots SET message_count = json_array_length(messages);
      ALTER TABLE compactions ADD COLUMN duration_ms INTEGER;
      ALTER TABLE compactions ADD COLUMN snapshot_id TEXT;
      CREATE TABLE pins (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, seq INTEGER, text TEXT NOT NULL,
        created_at INTEGER NOT NULL);`);
  },
  // v3: the tokenizer family and exactness of each stored count (seeded back on resume, no recount),
  // an index on turn, and sealed segments: older messages moved out to immutable files (segments.ts).
  (db) => {
    db.exec(`
      ALTER TABLE messages ADD COLUMN token_family TEXT;
      ALTER TABLE messages ADD COLUMN tokens_exact INTEGER;
      CREATE INDEX messages_turn ON messages (turn);
      CREATE TABLE segments (file TEXT PRIMARY KEY, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,
        last_turn INTEGER NOT NULL, count INTEGER NOT NULL, bytes INTEGER NOT NULL, created_at INTEGER NOT NULL);`);
  },
  // v4: small per-session records kept by the agent (the work ledger, the summary counter), one JSON value per key.
  (db) => {
    db.exec(`CREATE TABLE session_state (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL);`);
  },
  // v5: what each stored count is mostly made of (its content class, and whether it is mostly runs of
  // one character), so the first meter after a resume needs neither a recount nor a look at the text.
  (db) => {
    db.exec(`
      ALTER TABLE messages ADD COLUMN token_class TEXT;
      ALTER TABLE messages ADD COLUMN token_repetitive INTEGER;`);
  },
  // v6: what each compaction did to the context ("what left the context"), as JSON, so a reopened
  // session rebuilds its compaction cards with their view. NULL for older compactions.
  (db) => {
    db.exec('ALTER TABLE compactions ADD COLUMN report TEXT');
  },
  // v7: a snapshot's messages move to their own file (snapshot-files.ts), so the live database holds
  // only each snapshot's row and its export stays flat however many compactions there were. NULL: the
  // messages are still in the row (older snapshots; upkeep moves them out after the session opens).
  // An index on the snapshots' time: the resume view is the newest of hundreds.
  (db) => {
    db.exec(`
      ALTER TABLE snapshots ADD COLUMN file TEXT;
      CREATE INDEX snapshots_created ON snapshots (created_at);`);
  },
];
