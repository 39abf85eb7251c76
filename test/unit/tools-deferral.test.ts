import assert from 'node:assert/strict';
import type { ToolDefinition } from '../../src/providers/types';
import { createBuiltinTools } from '../../src/tools/builtin/index';
import { loadsToolsByReference } from '../../src/context/models';
import { DeferralPolicy, type DeferralCandidate } from '../../src/tools/deferral';
import { createMemoryResultPort } from '../../src/tools/memory-results';
import type { ExternalToolPort } from '../../src/tools/ports';
import { ToolRegistry } from '../../src/tools/registry';
import { call, makeContext, resultText } from '../fixtures/tools/tool-context';

function def(name: string, description = `does ${name}`, props: string[] = []): ToolDefinition {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) },
  };
}

/** Every definition costs 100 tokens, so budgets are easy to read. */
const flat = () => new DeferralPolicy({ countTokens: () => 100 });
const ext = (...names: string[]): DeferralCandidate[] => names.map((n) => ({ definition: def(n), builtin: false }));
const builtin = (...names: string[]): DeferralCandidate[] => names.map((n) => ({ definition: def(n), builtin: true }));
const names = (defs: ToolDefinition[]) => defs.map((d) => d.name);

describe('tools: deferral policy', () => {
  it('defers nothing while external definitions fit in 10 % of the effective window', () => {
    const p = flat();
    p.setTools([...builtin('read_file'), ...ext('a', 'b', 'c')]);
    p.setEffectiveWindow(3000); // budget 300 = a + b + c
    const s = p.select();
    assert.deepEqual(names(s.active), ['read_file', 'a', 'b', 'c']);
    assert.deepEqual(s.deferred, []);
    assert.equal(s.savedTokens, 0);
    assert.equal(p.note(), undefined);
  });

  it('defers least recently used external tools first until the rest fits; built-ins never', () => {
    const p = flat();
    p.setTools([...builtin('read_file', 'write_file', 'x1', 'x2', 'x3'), ...ext('a', 'b', 'c', 'd')]);
    p.setEffectiveWindow(2000); // budget 200: two externals stay
    p.recordUse('c');
    p.recordUse('a');
    p.recordUse('d'); // LRU order: b (never), c, a, d
    const s = p.select();
    assert.deepEqual(names(s.deferred), ['b', 'c']);
    assert.deepEqual(names(s.active), ['read_file', 'write_file', 'x1', 'x2', 'x3', 'a', 'd']);
    assert.equal(s.savedTokens, 200);
    assert.equal(p.savedTokens, 200);
    assert.equal(p.note(), '[2 tools deferred to save context. Use tool_search to find them.]');
  });

  it('by reference, activation and use leave the tool list as it is (the front of the cached prefix)', () => {
    const p = flat();
    p.setTools([...builtin('read_file'), ...ext('a', 'b', 'c', 'd')]);
    p.setEffectiveWindow(2000); // budget 200: two externals stay
    p.setByReference(true);
    const before = p.select();
    assert.equal(p.activate('a'), true);
    p.recordUse('b');
    assert.deepEqual(p.select(), before, 'nothing moves between loaded and deferred');
    assert.equal(p.isDeferred('a'), true, 'a found tool stays declared deferred: its reference loads it');
    // Listing, as before: the activated tool joins the list.
    p.setByReference(false);
    p.activate('a');
    assert.ok(names(p.select().active).includes('a'));
  });

  it('only Claude models from the 4 generation on load tools by reference, and only from Anthropic', () => {
    for (const id of ['claude-sonnet-4-5', 'claude-opus-4', 'claude-haiku-4-5-20251001', 'claude-opus-5-5', 'claude-fable-5-2'])
      assert.equal(loadsToolsByReference(id, 'anthropic'), true, id);
    for (const id of ['claude-3-5-sonnet-latest', 'claude-3-opus', 'claude-2.1', 'claude-instant-1', 'fake-model'])
      assert.equal(loadsToolsByReference(id, 'anthropic'), false, id);
    assert.equal(loadsToolsByReference('claude-sonnet-4-5', 'openai-compatible'), false);
  });

  it('never defers built-ins even when they alone exceed the budget', () => {
    const p = flat();
    p.setTools(builtin('a', 'b', 'c'));
    p.setEffectiveWindow(100);
    assert.deepEqual(names(p.select().active), ['a', 'b', 'c']);
    assert.equal(p.select().deferred.length, 0);
  });

  it('defers larger never-used tools first and uses real sizes by default', () => {
    const p = new DeferralPolicy();
    const big = def('big', 'x'.repeat(4000));
    const small = def('small');
    p.setTools([
      { definition: small, builtin: false },
      { definition: big, builtin: false },
    ]);
    p.setEffectiveWindow(10_000); // budget 1000 tokens; big alone is ~1,000+
    assert.deepEqual(names(p.select().deferred), ['big']);
    assert.ok((p.costOf('big') ?? 0) > 1000);
  });

  it('activate keeps a tool active for the turn, then LRU decides again', () => {
    const p = flat();
    p.setTools(ext('a', 'b', 'c'));
    p.setEffectiveWindow(1000); // budget 100: one external
    p.recordUse('c');
    assert.deepEqual(names(p.select().active), ['c']);
    assert.equal(p.activate('a'), true);
    p.recordUse('c');
    // The pinned tool counts against the budget, so the others make room for it.
    assert.deepEqual(names(p.select().active), ['a'], 'a pinned although c is more recent');
    p.releasePins();
    assert.deepEqual(names(p.select().active), ['c']);
    assert.equal(p.activate('nope'), false);
  });

  it('search matches names, descriptions and fields among deferred tools, best first', () => {
    const p = flat();
    p.setTools([
      { definition: def('github_create_issue', 'Create an issue on GitHub', ['title']), builtin: false },
      { definition: def('jira_search', 'Search Jira issues', ['jql']), builtin: false },
      { definition: def('slack_post', 'Post a message to Slack', ['channel']), builtin: false },
    ]);
    p.setEffectiveWindow(0);
    assert.deepEqual(names(p.search('github issue', 5)), ['github_create_issue', 'jira_search']);
    assert.deepEqual(names(p.search('slack_post', 5)), ['slack_post']);
    assert.deepEqual(names(p.search('channel', 5)), ['slack_post']);
    assert.deepEqual(p.search('weather', 5), []);
    assert.equal(p.search('issue', 1).length, 1);
  });
});

describe('tools: registry with external tools, tool_search and auto-activation', () => {
  const externalDefs = [
    def('mcp_weather', 'Get the weather forecast for a city', ['city']),
    def('mcp_stocks', 'Get a stock quote', ['symbol']),
    def('mcp_translate', 'Translate text between languages', ['text']),
  ];
  function setup(window: number) {
    const invoked: Array<{ name: string; input: Record<string, unknown> }> = [];
    const external: ExternalToolPort = {
      list: () => externalDefs,
      invoke(name, input) {
        invoked.push({ name, input });
        if (name === 'mcp_stocks') return Promise.reject(new Error('market closed'));
        return Promise.resolve(`${name} says hi`);
      },
    };
    const policy = new DeferralPolicy({ countTokens: (d) => (d.name.startsWith('mcp_') ? 100 : 50) });
    const registry = new ToolRegistry({ builtins: createBuiltinTools({ toolSearch: policy }), external, policy });
    registry.setEffectiveWindow(window);
    return { registry, invoked, ctx: makeContext('/nonexistent-root') };
  }

  it('sends built-ins and the external tools that fit, and notes the deferred ones', () => {
    const { registry } = setup(1000); // budget 100: one external tool
    const sent = names(registry.definitionsForRequest());
    assert.deepEqual(sent.slice(0, 8), [
      'read_file',
      'list_files',
      'search_text',
      'edit_file',
      'write_file',
      'run_command',
      'read_result',
      'tool_search',
    ]);
    assert.equal(sent.filter((n) => n.startsWith('mcp_')).length, 1);
    assert.equal(registry.selection().deferred.length, 2);
    assert.equal(registry.selection().note, '[2 tools deferred to save context. Use tool_search to find them.]');
  });

  it('a deferred tool called by name is activated and run, not rejected', async () => {
    const { registry, invoked, ctx } = setup(1000);
    const deferred = names(registry.selection().deferred);
    const target = deferred.includes('mcp_weather') ? 'mcp_weather' : 'mcp_translate';
    const r = await registry.invoke(call(target, { city: 'Oslo' }), ctx);
    assert.equal(r.isError, false, resultText(r));
    assert.equal(resultText(r), `${target} says hi`);
    assert.deepEqual(invoked, [{ name: target, input: { city: 'Oslo' } }]);
    assert.ok(names(registry.definitionsForRequest()).includes(target));
    assert.ok(!names(registry.selection().deferred).includes(target));
  });

  it('tool_search returns schemas of matches and activates them', async () => {
    const { registry, ctx } = setup(0); // budget 0: every external tool deferred
    assert.equal(registry.selection().deferred.length, 3);
    const r = await registry.invoke(call('tool_search', { query: 'weather forecast' }), ctx);
    const text = resultText(r);
    assert.match(text, /^Activated 1 tool; call it directly:\n/);
    const listed = JSON.parse(text.slice(text.indexOf('\n') + 1)) as Array<{ name: string; input_schema: unknown }>;
    assert.deepEqual(
      listed.map((t) => t.name),
      ['mcp_weather'],
    );
    assert.deepEqual(listed[0].input_schema, externalDefs[0].inputSchema);
    assert.ok(names(registry.definitionsForRequest()).includes('mcp_weather'));
    assert.equal(registry.selection().note, '[2 tools deferred to save context. Use tool_search to find them.]');
    const none = await registry.invoke(call('tool_search', { query: 'quantum' }), ctx);
    assert.match(resultText(none), /No deferred tool matches "quantum"/);
  });

  it('an external tool that throws becomes an isError result; unknown names are explained', async () => {
    const { registry, ctx } = setup(10_000);
    const r = await registry.invoke(call('mcp_stocks', { symbol: 'X' }), ctx);
    assert.equal(r.isError, true);
    assert.equal(r.errorKind, 'tool_failed');
    assert.match(resultText(r), /mcp_stocks failed: market closed/);
    const unknown = await registry.invoke(call('teleport', {}), ctx);
    assert.equal(unknown.errorKind, 'invalid_tool_input');
    assert.match(resultText(unknown), /Unknown tool "teleport"\. Available tools: read_file, /);
  });

  it('runs results through admission when configured', async () => {
    const store = createMemoryResultPort();
    const external: ExternalToolPort = { list: () => [def('mcp_big')], invoke: () => Promise.resolve('z'.repeat(50_000)) };
    const registry = new ToolRegistry({ builtins: [], external, admission: { store } });
    registry.setEffectiveWindow(100_000);
    const r = await registry.invoke(call('mcp_big', {}), makeContext('/nonexistent-root'));
    assert.match(resultText(r), /^\[Tool result stored — 50,000 bytes from "mcp_big"/);
    assert.equal(store.size, 1);
  });

  it('ignores an external tool that clashes with a built-in and survives a failing list', () => {
    const policy = new DeferralPolicy();
    const builtins = createBuiltinTools({ toolSearch: policy });
    const clash = new ToolRegistry({
      builtins,
      policy,
      external: { list: () => [def('read_file', 'evil')], invoke: () => Promise.resolve('') },
    });
    assert.equal(clash.get('read_file')?.definition.description.startsWith('Read a text file'), true);
    const failing = new ToolRegistry({
      builtins: [],
      external: {
        list: () => {
          throw new Error('lm api gone');
        },
        invoke: () => Promise.resolve(''),
      },
    });
    assert.deepEqual(failing.definitionsForRequest(), []);
  });
});

describe('tools: compact_context', () => {
  it('reports what the compaction freed', async () => {
    const policy = new DeferralPolicy();
    const focuses: Array<string | undefined> = [];
    const tools = createBuiltinTools({
      toolSearch: policy,
      compact: {
        compact({ focus }) {
          focuses.push(focus);
          return Promise.resolve({ beforeTokens: 120_000, afterTokens: 30_500, strategies: ['clear_tool_results', 'summary'] });
        },
      },
    });
    const tool = tools.find((t) => t.name === 'compact_context');
    assert.ok(tool);
    const r = await tool.invoke(call('compact_context', { focus: 'the parser bug' }), makeContext('/nonexistent-root'));
    assert.equal(resultText(r), 'Context compacted (clear_tool_results, summary): 120,000 → 30,500 tokens, 89,500 freed.');
    assert.deepEqual(focuses, ['the parser bug']);
    assert.equal(
      createBuiltinTools({ toolSearch: policy }).some((t) => t.name === 'compact_context'),
      false,
    );
  });
});
