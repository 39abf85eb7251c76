/**
 * Child process of the store bench: opens the store at argv[2] and the session argv[3] the way the
 * panel does (context view + the last page of the visible transcript) in a fresh process, and prints
 * {"ms": …, "ownMs": …, "cpuMs": …, "mainCpuMs": …, "rssMb": …} — the time, that time less what the main
 * thread spent waiting for a CPU (`mainThreadClock` in util.ts; the same as `ms` where the kernel does
 * not say), the process's on-CPU time of it (all threads: the engine's background compiler and GC
 * too) and the main thread's, and the growth of resident memory that opening caused.
 */
import { openStore } from '../src/store';
import { loadSqlJs } from '../src/store/sqljs';
import { WASM } from './store-session-fixture';
import { mainThreadClock } from './util';
import { errorStack } from '../src/common/errors';

async function main(): Promise<void> {
  const [root, id] = process.argv.slice(2);
  await loadSqlJs(WASM); // the engine is loaded at activation, not by opening a session
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const cpu0 = process.cpuUsage();
  const clock0 = mainThreadClock();
  const t0 = performance.now();
  const store = await openStore({ root, wasmPath: WASM });
  const view = await store.sessions.contextView(id);
  // The last page of the transcript, found from the session list (what the panel has at hand), not
  // by reading the session's messages a second time.
  const lastSeq = store.sessions.get(id).messageCount;
  const page = await store.sessions.transcript(id, { fromSeq: Math.max(0, lastSeq - 49), limit: 50 });
  const ms = performance.now() - t0;
  const clock = mainThreadClock();
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const ownMs = clock && clock0 ? Math.max(0, ms - (clock.waitMs - clock0.waitMs)) : ms;
  const mainCpuMs = clock && clock0 ? clock.runMs - clock0.runMs : cpuMs;
  global.gc?.();
  const rssMb = (process.memoryUsage().rss - rss0) / 1024 / 1024;
  if (page.length !== Math.min(50, lastSeq) || page.at(-1)?.seq !== lastSeq || view.messages.length === 0)
    throw new Error('the session did not open as expected');
  await store.close();
  process.stdout.write(JSON.stringify({ ms, ownMs, cpuMs, mainCpuMs, rssMb, contextMessages: view.messages.length }) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(errorStack(err) + '\n');
  process.exit(1);
});
