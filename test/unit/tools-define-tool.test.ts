import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool';
import { call, makeContext, resultText } from '../fixtures/tools/tool-context';

const echo = defineTool({
  name: 'echo',
  description: 'Echo a message',
  input: z.object({ message: z.string().describe('What to echo'), times: z.number().int().min(1).default(1) }),
  execute: ({ message, times }) => Promise.resolve(message.repeat(times)),
});

describe('tools: defineTool', () => {
  const ctx = () => makeContext('/nonexistent-root');

  it('emits the JSON Schema once, without $schema, with defaults optional', () => {
    assert.equal(echo.definition.name, 'echo');
    assert.equal(echo.definition.inputSchema.$schema, undefined);
    assert.equal(echo.definition.inputSchema.type, 'object');
    assert.deepEqual(echo.definition.inputSchema.required, ['message']);
    assert.equal(echo.definition, echo.definition, 'same object each time');
  });

  it('runs valid input and applies defaults', async () => {
    const r = await echo.invoke(call('echo', { message: 'ab', times: 2 }), ctx());
    assert.equal(r.isError, false);
    assert.equal(resultText(r), 'abab');
    assert.equal(r.toolName, 'echo');
    assert.equal(r.role, 'toolResult');
  });

  it('names the wrong field when input is invalid', async () => {
    const c = call('echo', { message: 42 });
    const r = await echo.invoke(c, ctx());
    assert.equal(r.isError, true);
    assert.equal(r.errorKind, 'invalid_tool_input');
    assert.equal(r.toolCallId, c.id);
    const text = resultText(r);
    assert.match(text, /Invalid input for echo/);
    assert.match(text, /- message: .*expected string/);
    assert.match(text, /Call echo again/);
  });

  it('reports a missing required field and unexpected ones', async () => {
    const r = await echo.invoke(call('echo', { msg: 'hi' }), ctx());
    const text = resultText(r);
    assert.match(text, /- message: required field is missing/);
    assert.match(text, /unexpected field\(s\): msg \(accepted fields: message, times\)/);
  });

  it('reports unparsable raw arguments', async () => {
    const r = await echo.invoke(call('echo', {}, '{"message": "hi'), ctx());
    assert.equal(r.errorKind, 'invalid_tool_input');
    assert.match(resultText(r), /not a valid JSON object/);
    assert.match(resultText(r), /Received: \{"message": "hi/);
  });

  it('turns a throw into an isError result', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'Fails',
      input: z.object({}),
      execute: () => Promise.reject(new Error('disk on fire')),
    });
    const r = await boom.invoke(call('boom', {}), ctx());
    assert.equal(r.isError, true);
    assert.equal(r.errorKind, 'tool_failed');
    assert.equal(resultText(r), 'boom failed: disk on fire');
  });

  it('stops a tool at its timeout and aborts its signal', async () => {
    let sawAbort = false;
    const slow = defineTool({
      name: 'slow',
      description: 'Never finishes on its own',
      input: z.object({}),
      timeoutMs: 20,
      execute: (_input, c) =>
        new Promise<string>(() => {
          c.signal.addEventListener('abort', () => (sawAbort = true));
        }),
    });
    const r = await slow.invoke(call('slow', {}), ctx());
    assert.equal(r.isError, true);
    assert.equal(r.errorKind, 'tool_failed');
    assert.match(resultText(r), /slow timed out after 20 ms/);
    assert.equal(sawAbort, true);
  });

  it('returns an aborted result when the turn is stopped mid-call', async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: 'hang',
      description: 'Waits',
      input: z.object({}),
      execute: () => new Promise<string>(() => {}),
    });
    const pending = hang.invoke(call('hang', {}), { ...ctx(), signal: controller.signal });
    setImmediate(() => controller.abort());
    const r = await pending;
    assert.equal(r.errorKind, 'aborted');
    assert.match(resultText(r), /stopped by the user/);
  });

  it('does not run a tool when the signal is already aborted', async () => {
    let ran = false;
    const t = defineTool({
      name: 't',
      description: 'd',
      input: z.object({}),
      execute() {
        ran = true;
        return Promise.resolve('x');
      },
    });
    const controller = new AbortController();
    controller.abort();
    const r = await t.invoke(call('t', {}), { ...ctx(), signal: controller.signal });
    assert.equal(r.errorKind, 'aborted');
    assert.equal(ran, false);
  });

  it('refuses a mutating tool in an untrusted workspace without running it', async () => {
    let ran = false;
    const t = defineTool({
      name: 'mut',
      description: 'd',
      input: z.object({}),
      mutates: true,
      execute() {
        ran = true;
        return Promise.resolve('x');
      },
    });
    const r = await t.invoke(call('mut', {}), makeContext('/nonexistent-root', { trusted: false }));
    assert.equal(r.isError, true);
    assert.match(resultText(r), /not trusted/);
    assert.equal(ran, false);
  });

  it('keeps isError from a tool that returns an error output', async () => {
    const t = defineTool({
      name: 'soft',
      description: 'd',
      input: z.object({}),
      execute: () => Promise.resolve({ content: 'nope', isError: true }),
    });
    const r = await t.invoke(call('soft', {}), ctx());
    assert.equal(r.isError, true);
    assert.equal(resultText(r), 'nope');
  });
});
