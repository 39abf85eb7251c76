/**
 * Deferred tools loaded by reference (Anthropic `defer_loading` + `tool_reference`), end to end through
 * the real SDK and the fake provider, which follows the published rule: deferred tools are not part of
 * the cached prefix and a reference costs its definition where it stands
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching).
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/agent';
import type { Usage } from '../../src/providers/types';
import { createHarness, externalTools, textOf, type Harness } from '../fixtures/agent/harness';
import { startFakeProvider } from '../fixtures/fake-provider';
import type { Obj } from '../fixtures/fake-provider/wire-json';

const usages = (events: AgentEvent[]): Usage[] => events.flatMap((e) => (e.type === 'usage' ? [e.usage] : []));
const wireTools = (h: Harness, i: number) => (h.server.requests[i].body as Obj).tools as Obj[];

/** A session whose external tools are partly deferred: search one, call it, answer. */
async function searchAndCall(byReference: boolean): Promise<{ h: Harness; name: string; usage: Usage[] }> {
  const ext = externalTools(12);
  const h = await createHarness({ window: 32_000, external: ext });
  h.config.request = { cacheTail: true };
  h.registry.policy.setByReference(byReference);
  const name = h.registry.selection().deferred[1].name;
  h.server.script.push(
    { toolCalls: [{ id: 's1', name: 'tool_search', arguments: { query: name, limit: 1 } }] },
    { toolCalls: [{ id: 'x1', name, arguments: { query: 'found' } }] },
    { text: 'done' },
  );
  await h.turn('find a tool and use it');
  assert.deepEqual(
    ext.calls.map((c) => c.name),
    [name],
    'the found tool ran',
  );
  return { h, name, usage: usages(h.events) };
}

describe('agent loop: deferred tools loaded by reference', () => {
  const open: Harness[] = [];
  afterEach(async () => Promise.all(open.splice(0).map((h) => h.close())));

  it('declares deferred tools with defer_loading, loads the found one by reference, and never changes the tool list', async () => {
    const { h, name } = await searchAndCall(true);
    open.push(h);
    const first = wireTools(h, 0);
    const deferred = h.registry.selection().deferred.map((d) => d.name);
    assert.deepEqual(
      first.filter((t) => t.defer_loading === true).map((t) => t.name),
      deferred,
      'every deferred tool is declared deferred',
    );
    assert.ok(
      first.some((t) => t.name === 'read_file' && t.defer_loading === undefined),
      'built-ins are loaded',
    );
    const lastLoaded = first.findLastIndex((t) => t.defer_loading !== true);
    assert.ok(
      first.slice(0, lastLoaded).every((t) => t.defer_loading !== true),
      'loaded tools come first',
    );
    for (let i = 1; i < h.server.requests.length; i++) assert.deepEqual(wireTools(h, i), first, `request ${i} has the same tools`);
    // The search's result goes as a reference; the transcript keeps the definitions as text.
    const msgs = (h.server.requests[1].body as Obj).messages as Obj[];
    const result = msgs.flatMap((m) => (Array.isArray(m.content) ? (m.content as Obj[]) : [])).find((b) => b.type === 'tool_result');
    assert.deepEqual(result?.content, [{ type: 'tool_reference', tool_name: name }]);
    const search = h.view.find((m) => m.role === 'toolResult')!;
    assert.match(textOf(search), /Activated 1 tool[\s\S]*input_schema/);
    assert.equal(
      h.server.requests.every((r) => r.status === 200),
      true,
      'the provider took every request',
    );
  });

  it('keeps the cache across the activation, where listing the tool rebuilt the whole prefix', async () => {
    const listed = await searchAndCall(false);
    open.push(listed.h);
    const referenced = await searchAndCall(true);
    open.push(referenced.h);
    // The request after the search: listing the found tool changes the front of the prefix (tools), so
    // nothing is read from the cache; by reference, everything up to the previous breakpoint is.
    const after = (u: Usage[]) => u[1];
    assert.equal(after(listed.usage).cacheRead, 0, `listing reads nothing: ${JSON.stringify(listed.usage)}`);
    const r = after(referenced.usage);
    assert.ok(r.cacheRead > 0.5 * (r.cacheRead + r.cacheWrite + r.input), `by reference most is read: ${JSON.stringify(referenced.usage)}`);
    // The loaded definition costs about what listing it did: the provider expands the reference in place.
    const total = (u: Usage) => u.cacheRead + u.cacheWrite + u.input;
    const [a, b] = [total(listed.usage[2]), total(referenced.usage[2])];
    assert.ok(
      b <= a,
      `declared deferred tools cost nothing; the loaded one costs its definition once, not in the list and the text (${b} ≤ ${a})`,
    );
  });

  it('sends the definitions as text when a request does not declare the referenced tools (the forced final answer)', async () => {
    const { h, name } = await searchAndCall(true);
    open.push(h);
    const { toAnthropicParams } = await import('../../src/providers/anthropic-convert');
    const params = toAnthropicParams({ model: 'm', system: [], messages: h.view, tools: [], maxOutputTokens: 100 });
    const blocks = params.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    const result = blocks.find((b) => b.type === 'tool_result' && b.tool_use_id === 's1') as {
      content: Array<{ type: string; text?: string }>;
    };
    assert.equal(result.content[0].type, 'text');
    assert.match(result.content[0].text ?? '', new RegExp(name));
    assert.equal(
      (params.tools ?? []).some((t) => 'defer_loading' in t),
      false,
      'no deferred tool without a loaded one beside it',
    );
  });

  it('lists the loaded tools and goes again when the provider refuses deferred loading, and keeps listing', async () => {
    const ext = externalTools(12);
    const h = await createHarness({ window: 32_000, external: ext });
    open.push(h);
    h.registry.policy.setByReference(true);
    let refused = '';
    h.config.onToolReferencesRefused = (m) => (refused = m);
    const name = h.registry.selection().deferred[1].name;
    h.server.script.push(
      { toolCalls: [{ id: 's1', name: 'tool_search', arguments: { query: name, limit: 1 } }] },
      { fault: 'invalid_request', message: 'tools.12.defer_loading: Extra inputs are not permitted' },
      { toolCalls: [{ id: 'x1', name, arguments: { query: 'found' } }] },
      { text: 'done' },
    );
    const r = await h.turn('find a tool and use it');
    assert.equal(r.reason, 'done');
    assert.match(refused, /defer_loading/);
    const again = wireTools(h, 2);
    assert.ok(
      again.some((t) => t.name === name && t.defer_loading === undefined),
      'the found tool is listed',
    );
    assert.ok(
      again.every((t) => t.defer_loading === undefined),
      'nothing is declared deferred any more',
    );
    assert.deepEqual(
      ext.calls.map((c) => c.name),
      [name],
    );
    assert.equal(h.registry.policy.byReference, false);
  });

  it('the fake refuses what the API refuses: every tool deferred, a reference to an undeclared tool', async () => {
    const server = await startFakeProvider({ window: 32_000 });
    try {
      const post = async (body: Obj) => {
        const res = await fetch(`${server.baseUrl}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({ model: 'fake-model', max_tokens: 100, ...body }),
        });
        return { status: res.status, text: await res.text() };
      };
      const tool = (name: string, defer?: boolean) => ({
        name,
        description: 'd',
        input_schema: { type: 'object' },
        ...(defer ? { defer_loading: true } : {}),
      });
      const hi = [{ role: 'user', content: 'hi' }];
      const allDeferred = await post({ messages: hi, tools: [tool('a', true), tool('b', true)] });
      assert.equal(allDeferred.status, 400);
      assert.match(allDeferred.text, /At least one tool must be non-deferred/);
      const conversation = (ref: string) => [
        { role: 'user', content: 'find' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'tool_search', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: ref }] }] },
      ];
      const unresolved = await post({ messages: conversation('nope'), tools: [tool('tool_search'), tool('b', true)] });
      assert.equal(unresolved.status, 400);
      assert.match(unresolved.text, /tool_reference to `nope`/);
      server.script.push({ text: 'ok' });
      assert.equal((await post({ messages: conversation('b'), tools: [tool('tool_search'), tool('b', true)] })).status, 200);
    } finally {
      await server.close();
    }
  });
});
