/**
 * Search History… over a big workspace: 50 stored sessions of 600 messages each (realistic turns,
 * `store-session-fixture.ts`), searched the way the quick pick searches as one types
 * (`app/workspace-search.ts`: the current session first, then the others newest first, a yield between
 * sessions). Figures:
 * - `history_search_first_page_ms`: p95 time until the first page of hits (20) is in hand, for a phrase
 *   each session holds once (so the page needs 20 sessions), once the other sessions are in memory;
 * - `history_search_no_match_ms`: p95 time of a search that matches nothing (every session searched);
 * - `history_search_cold_ms`: the first search after the store opened (every session read from disk);
 * - `history_search_block_ms`: the longest the event loop waited on the search's own work (less the
 *   time the thread waited for a CPU), over the cold and the warm searches.
 * Built in a temp folder under os.tmpdir() and removed afterwards.
 */
// figures: history_search_first_page_ms history_search_no_match_ms history_search_cold_ms history_search_block_ms
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionSearch } from '../src/app/session-search';
import type { SessionStorage } from '../src/app/store-lifecycle';
import { WorkspaceSearch } from '../src/app/workspace-search';
import { errorStack } from '../src/common/errors';
import { openStore } from '../src/store';
import { buildSession, WASM } from './store-session-fixture';
import { load1, r3, report, watchBlocks } from './util';

const SESSIONS = 50;
const MESSAGES = 600;
const FIRST_PAGE = 20;
const RUNS = 20;

const p95 = (values: number[]) => r3([...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]);

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'headroom-bench-search-'));
  try {
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) ids.push(await buildSession(root, MESSAGES, { compacted: false }));
    const store = await openStore({ root, wasmPath: WASM });
    const storage = { store, resultPort: (id: string) => store.results.port(id) } as unknown as SessionStorage;
    const current = ids[0];
    const ready = () => Promise.resolve();
    const mine = new SessionSearch(storage, { id: current, messages: [] }, ready);
    const search = new WorkspaceSearch(storage, { id: current, list: () => store.sessions.list() }, mine, ready);

    /** Runs one search; the time until `page` hits were in hand (or it ended) and until it ended. */
    const once = async (query: string, page: number) => {
      const t0 = performance.now();
      let hits = 0;
      let firstPageMs: number | undefined;
      let sessions = 0;
      for await (const part of search.search(query, new AbortController().signal)) {
        hits += part.hits.length;
        sessions++;
        if (firstPageMs === undefined && hits >= page) firstPageMs = performance.now() - t0;
      }
      const allMs = performance.now() - t0;
      return { firstPageMs: firstPageMs ?? allMs, allMs, hits, sessions };
    };

    const blocks = watchBlocks();
    const cold = await once('zebra quartz', FIRST_PAGE);
    const firstPage: number[] = [];
    const noMatch: number[] = [];
    let pageHits = 0;
    let pageSessions = 0;
    for (let run = 0; run < RUNS; run++) {
      const page = await once('module 199 and fix', FIRST_PAGE);
      firstPage.push(page.firstPageMs);
      pageHits = page.hits;
      pageSessions = page.sessions;
      noMatch.push((await once('zebra quartz', FIRST_PAGE)).allMs);
    }
    const block = blocks.stop();
    await store.close();
    if (pageHits < FIRST_PAGE) throw new Error(`the phrase found ${pageHits} hits, not a page of ${FIRST_PAGE}`);
    const size = { sessions: SESSIONS, messagesEach: MESSAGES, load1: load1() };
    report({
      bench: 'history_search_first_page_ms',
      value: p95(firstPage),
      unit: 'ms',
      target: 150,
      better: 'lower',
      ...size,
      pageHits: FIRST_PAGE,
      hitsInAll: pageHits,
      sessionsWithHits: pageSessions,
      runs: RUNS,
    });
    report({ bench: 'history_search_no_match_ms', value: p95(noMatch), unit: 'ms', target: 300, better: 'lower', ...size, runs: RUNS });
    report({ bench: 'history_search_cold_ms', value: r3(cold.allMs), unit: 'ms', target: 3000, better: 'lower', ...size });
    report({
      bench: 'history_search_block_ms',
      value: r3(block.ownMs),
      unit: 'ms',
      target: 50,
      better: 'lower',
      wallMs: r3(block.wallMs),
      ...size,
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${errorStack(err)}\n`);
  process.exit(1);
});
