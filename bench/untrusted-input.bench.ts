/**
 * Hostile input cannot stall the host or run unbounded: the host thread's longest block while a
 * backtracking grep runs on a `msg_<seq>` reference; the wall-clock time of a hostile glob and of a
 * hostile grep over a multi-chunk result (one budget per call); the time and the longest block of a
 * 16 MB server-sent event (cut at 8 MB in linear time); the largest read search_history makes over
 * 24 MB of stored results (bounded windows). Built in temp folders and on 127.0.0.1 only.
 */
// figures: msg_ref_grep_host_block_ms hostile_glob_call_ms multichunk_grep_call_ms sse_16mb_event_ms sse_16mb_event_max_block_ms search_history_largest_read_bytes
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAIProvider } from '../src/providers/openai';
import { listFilesTool } from '../src/tools/builtin/list-files';
import { readResultTool } from '../src/tools/builtin/read-result';
import { createHistorySearchPort } from '../src/tools/history-port';
import { createMemoryResultPort } from '../src/tools/memory-results';
import { withMessageRefs } from '../src/tools/message-refs';
import { createNodeWorkspace } from '../src/tools/node-workspace';
import { bufferSource, pageSource } from '../src/tools/result-port';
import type { ToolContext } from '../src/tools/ports';
import type { Message } from '../src/providers/types';
import { measureMaxBlock, r3, report } from './util';

const call = (name: string, args: Record<string, unknown>) => ({ type: 'toolCall' as const, id: `b-${name}`, name, arguments: args });
const approve = { request: () => Promise.resolve({ approved: true as const }) };

async function msgRefGrep(root: string): Promise<void> {
  const results = withMessageRefs(createMemoryResultPort(), (seq) =>
    Promise.resolve({
      seq,
      turn: 1,
      message: { role: 'user' as const, content: [{ type: 'text' as const, text: `${'a'.repeat(26)}!` }], timestamp: 1 },
    }),
  );
  const ctx: ToolContext = { signal: new AbortController().signal, workspace: createNodeWorkspace(root), results, approve, trusted: true };
  // Warm-up: modules and the worker load once per process, not per call.
  await readResultTool.invoke(call('read_result', { ref_id: 'msg_1', grep: 'a!' }), ctx);
  const { maxBlockMs } = await measureMaxBlock(() => readResultTool.invoke(call('read_result', { ref_id: 'msg_1', grep: '(a+)+$' }), ctx));
  report({ bench: 'msg_ref_grep_host_block_ms', value: r3(maxBlockMs), unit: 'ms', target: 50, better: 'lower', line: '26 × a + "!"' });
}

async function hostileGlob(root: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    mkdirSync(join(root, `f${i}`), { recursive: true });
    writeFileSync(join(root, `f${i}`, 'a'.repeat(40)), 'x\n');
  }
  const ctx: ToolContext = {
    signal: new AbortController().signal,
    workspace: createNodeWorkspace(root),
    results: createMemoryResultPort(),
    approve,
    trusted: true,
  };
  const t0 = performance.now();
  await listFilesTool.invoke(call('list_files', { glob: '**a'.repeat(6) + '**b' }), ctx);
  report({
    bench: 'hostile_glob_call_ms',
    value: Math.round(performance.now() - t0),
    unit: 'ms',
    target: 12_000,
    better: 'lower',
    budgetMs: 10_000,
  });
}

async function multichunkGrep(): Promise<void> {
  const content = Buffer.from(`${'a'.repeat(21)}!\n`.repeat(400));
  const t0 = performance.now();
  await pageSource(bufferSource(content), { offset: 0, limit: 1000, grep: '(a+)+$' }, { chunkBytes: 23 }).catch(() => undefined);
  report({
    bench: 'multichunk_grep_call_ms',
    value: Math.round(performance.now() - t0),
    unit: 'ms',
    target: 7_000,
    better: 'lower',
    budgetMs: 5_000,
  });
}

async function hugeSseEvent(): Promise<void> {
  let warm = true;
  const srv = createServer((req, res) => {
    req.resume();
    if (warm) {
      warm = false;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return res.end('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    res.write('data: {"x":"');
    const pump = () => {
      while (sent < 16 * 1024 * 1024 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      res.end('"}\n\n');
    };
    pump();
    res.on('error', () => undefined);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1`;
  const provider = new OpenAIProvider({ provider: 'openai-compatible', baseUrl: url, retry: { maxRetries: 0 } });
  const t0 = performance.now();
  const { maxBlockMs } = await measureMaxBlock(async () => {
    for await (const e of provider.stream({
      model: 'm',
      system: [],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 }],
      tools: [],
      maxOutputTokens: 16,
    }))
      void e;
  });
  const ms = performance.now() - t0;
  await new Promise<void>((r) => srv.close(() => r()));
  report({ bench: 'sse_16mb_event_ms', value: Math.round(ms), unit: 'ms', target: 5_000, better: 'lower' });
  report({ bench: 'sse_16mb_event_max_block_ms', value: r3(maxBlockMs), unit: 'ms', target: 50, better: 'lower' });
}

async function historyWindows(): Promise<void> {
  const port = createMemoryResultPort();
  const filler = 'INFO request served in 12 ms\n'.repeat(Math.ceil((8 * 1024 * 1024) / 29));
  const entries: Array<{ seq: number; turn: number; message: Message }> = [];
  for (let i = 0; i < 3; i++) {
    const refId = await port.put({ toolName: 'run_command', toolCallId: `c${i}`, content: filler });
    entries.push({
      seq: i + 1,
      turn: i + 1,
      message: {
        role: 'toolResult',
        toolCallId: `c${i}`,
        toolName: 'run_command',
        content: [{ type: 'text', text: '[stored]' }],
        isError: false,
        refId,
        timestamp: 1,
      },
    });
  }
  let largest = 0;
  const search = createHistorySearchPort({
    transcript: () => Promise.resolve(entries),
    page: async (ref, offset, limit) => {
      const p = await port.page(ref, { offset, limit });
      largest = Math.max(largest, Buffer.byteLength(p?.text ?? ''));
      return p;
    },
  });
  await search.search({ query: 'absent phrase' }, new AbortController().signal);
  report({
    bench: 'search_history_largest_read_bytes',
    value: largest,
    unit: 'bytes',
    target: 1024 * 1024,
    better: 'lower',
    storedBytes: 3 * filler.length,
  });
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'headroom-bench-untrusted-'));
  try {
    await msgRefGrep(root);
    await hostileGlob(root);
    await multichunkGrep();
    await hugeSseEvent();
    await historyWindows();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main().then(() => process.exit(0));
