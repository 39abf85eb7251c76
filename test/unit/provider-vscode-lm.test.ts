import assert from 'node:assert/strict';
import { lmError, toLmMessages, type LmMessage, type LmStreamPart } from '../../src/providers/lm-chat-convert';
import { LmChatProvider, type LmChatPort } from '../../src/providers/lm-chat';
import type { AssistantMessage, ToolDefinition } from '../../src/providers/types';
import { instantRetry, readFileTool, request, run, toolResult, user } from '../fixtures/fake-provider/factories';

/** A VS Code language model stand-in: scripted replies (parts or a thrown error), recorded requests, a word count. */
function fakeModel(script: Array<LmStreamPart[] | Error | { parts: LmStreamPart[]; thenThrow: Error }>) {
  const sent: Array<{ messages: LmMessage[]; tools: ToolDefinition[] }> = [];
  const port: LmChatPort = {
    send(messages, tools) {
      sent.push({ messages, tools });
      const step = script.shift() ?? [{ kind: 'text', text: 'echo' }];
      if (step instanceof Error) return Promise.reject(step);
      const parts = Array.isArray(step) ? step : step.parts;
      const fail = Array.isArray(step) ? undefined : step.thenThrow;
      return Promise.resolve(
        (async function* () {
          for (const p of parts) {
            await Promise.resolve();
            yield p;
          }
          if (fail) throw fail;
        })(),
      );
    },
    countTokens: (text) => Promise.resolve(text.split(/\s+/).filter(Boolean).length),
  };
  return { port, sent };
}

const lmErrorOf = (code: string, message = '') => Object.assign(new Error(message), { name: `LanguageModelError`, code });

describe('provider: VS Code Language Model API (pure adapter over a port)', () => {
  it("streams text and whole tool calls; usage is the model's own count, marked estimated", async () => {
    const m = fakeModel([
      [
        { kind: 'text', text: 'Reading ' },
        { kind: 'text', text: 'it.' },
        { kind: 'toolCall', callId: 'tc1', name: 'read_file', input: { path: 'a.ts' } },
      ],
    ]);
    const { events, message } = await run(new LmChatProvider(m.port), request([user('read a.ts please')], { tools: [readFileTool] }));
    assert.deepEqual(
      events.map((e) => e.type),
      ['start', 'text_delta', 'text_delta', 'toolcall_start', 'toolcall_end', 'done'],
    );
    assert.equal(message.provider, 'vscode-lm');
    assert.equal(message.stopReason, 'toolUse');
    assert.deepEqual(message.content, [
      { type: 'text', text: 'Reading it.' },
      { type: 'toolCall', id: 'tc1', name: 'read_file', arguments: { path: 'a.ts' } },
    ]);
    assert.equal(message.usage.estimated, true);
    assert.ok(message.usage.input >= 'You are a test assistant. read a.ts please'.split(' ').length);
    assert.ok(message.usage.output >= 2); // "Reading it." and the call, by the model's count
    assert.deepEqual(
      m.sent[0].tools.map((t) => t.name),
      ['read_file'],
    );
  });

  it("sends the system prompt as the first user message and a round's tool results together after the calls", () => {
    const calls: AssistantMessage = {
      role: 'assistant',
      provider: 'vscode-lm',
      model: 'm',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      stopReason: 'toolUse',
      timestamp: 0,
      content: [
        { type: 'reasoning', text: 'not sent' },
        { type: 'toolCall', id: 'a', name: 'read_file', arguments: { path: 'x' } },
        { type: 'toolCall', id: 'b', name: 'read_file', arguments: { path: 'y' } },
      ],
    };
    const out = toLmMessages('SYSTEM', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'go' },
          { type: 'image', mediaType: 'image/png', data: 'AAAA' },
        ],
        timestamp: 0,
      },
      calls,
      toolResult('a', 'read_file', 'X'),
      toolResult('b', 'read_file', 'no such file', true),
    ]);
    assert.deepEqual(
      out.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(out[0].parts[0].kind === 'text' && out[0].parts[0].text, 'SYSTEM');
    assert.match(JSON.stringify(out[0].parts[1]), /image omitted \(image\/png\)/);
    assert.deepEqual(
      out[1].parts.map((p) => p.kind),
      ['toolCall', 'toolCall'],
    );
    assert.deepEqual(out[2].parts, [
      { kind: 'toolResult', callId: 'a', text: 'X' },
      { kind: 'toolResult', callId: 'b', text: '[tool error] no such file' },
    ]);
  });

  it('maps LanguageModelError codes to kinds a person can act on; an overflow stays an overflow', () => {
    const consent = lmError(lmErrorOf('NoPermissions', 'consent not given'));
    assert.equal(consent.kind, 'auth');
    assert.match(consent.message, /Manage Language Model Access/);
    assert.equal(lmError(lmErrorOf('Blocked')).kind, 'rate_limit');
    assert.equal(lmError(lmErrorOf('NotFound')).kind, 'invalid_request');
    assert.equal(
      lmError(
        new Error(
          'Request Failed: 400 {"error":{"message":"prompt token count of 130512 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}',
        ),
      ).kind,
      'context_overflow',
    );
    assert.equal(lmError(Object.assign(new Error('Canceled'), { name: 'Canceled' })).kind, 'aborted');
  });

  it('retries a Blocked (quota) failure before anything streamed, and never throws on a broken stream', async () => {
    const retry = instantRetry();
    const m = fakeModel([
      lmErrorOf('Blocked', 'rate limited'),
      [{ kind: 'text', text: 'after the wait' }],
      { parts: [{ kind: 'text', text: 'half' }], thenThrow: new Error('socket hang up') },
    ]);
    const p = new LmChatProvider(m.port, retry.policy);
    const ok = await run(p, request([user('x')]));
    assert.equal(ok.message.stopReason, 'end');
    assert.equal(retry.delays.length, 1);
    const broken = await run(p, request([user('y')]));
    assert.equal(broken.message.stopReason, 'error');
    assert.equal(broken.message.error?.kind, 'network');
    assert.equal(broken.message.partial, true);
    assert.deepEqual(broken.message.content, [{ type: 'text', text: 'half' }]);
  });

  it('ends aborted when the person stops the turn', async () => {
    const controller = new AbortController();
    const port: LmChatPort = {
      send: () =>
        Promise.resolve(
          (async function* (): AsyncGenerator<LmStreamPart> {
            yield { kind: 'text', text: 'start' };
            controller.abort();
            await Promise.resolve();
            yield { kind: 'text', text: ' more' };
          })(),
        ),
      countTokens: () => Promise.resolve(1),
    };
    const { message } = await run(new LmChatProvider(port), request([user('x')]), controller.signal);
    assert.equal(message.stopReason, 'aborted');
  });
});
