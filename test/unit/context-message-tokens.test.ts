import assert from 'node:assert/strict';
import { loadEncoding } from '../../src/context/encoder';
import { countInFamily } from '../../src/context/worker-count';
import { IMAGE_TOKENS_MAX, imageTokens } from '../../src/common/images';
import {
  MESSAGE_OVERHEAD,
  TOOL_CALL_OVERHEAD,
  countMessageWith,
  estimateMessage,
  estimateText,
  familyTokens,
  messageHash,
  messageParts,
  toolDefinitionParts,
} from '../../src/context/message-tokens';
import type { AssistantMessage, UserMessage } from '../../src/providers/types';
import { assistant, toolResult, user } from '../fixtures/context/factories';

describe('context message tokens', () => {
  it('counts text, tool call names and arguments, reasoning and results, plus framing', () => {
    const a: AssistantMessage = {
      ...assistant('Let me look.', [{ id: 'c1', name: 'read_file', args: { path: 'src/x.ts', start: 1 } }]),
      content: [
        { type: 'reasoning', text: 'thinking hard' },
        ...assistant('Let me look.', [{ id: 'c1', name: 'read_file', args: { path: 'src/x.ts', start: 1 } }]).content,
      ],
    };
    const parts = messageParts(a);
    assert.deepEqual(parts.texts, ['thinking hard', 'Let me look.', 'read_file', '{"path":"src/x.ts","start":1}']);
    assert.ok(parts.fixed >= MESSAGE_OVERHEAD + TOOL_CALL_OVERHEAD);
    assert.deepEqual(messageParts(toolResult('c1', 'file body')).texts, ['read_file', 'file body']);
  });

  it('charges an image by its size in pixels (width × height / 750, 85 to 1600), never by its bytes', () => {
    const image = (data: string, width?: number, height?: number): UserMessage => ({
      role: 'user',
      content: [{ type: 'image', mediaType: 'image/png', data, ...(width ? { width, height } : {}) }],
      timestamp: 0,
    });
    // Unknown size: the cap, however small or large the data.
    assert.equal(estimateMessage(image('AAAA'), 'o200k').tokens, MESSAGE_OVERHEAD + IMAGE_TOKENS_MAX);
    assert.equal(estimateMessage(image('A'.repeat(400_000)), 'o200k').tokens, MESSAGE_OVERHEAD + IMAGE_TOKENS_MAX);
    // 1000×750 → 1000 tokens, whatever the data's length.
    assert.equal(estimateMessage(image('AAAA', 1000, 750), 'o200k').tokens, MESSAGE_OVERHEAD + 1000);
    assert.equal(estimateMessage(image('A'.repeat(400_000), 1000, 750), 'o200k').tokens, MESSAGE_OVERHEAD + 1000);
    assert.equal(imageTokens(10, 10), 85);
    assert.equal(imageTokens(4000, 3000), 1600);
    assert.equal(imageTokens(1568, 200), Math.ceil((1568 * 200) / 750));
    // Scaled to a 1568 px long side first: 3136×400 costs what 1568×200 does.
    assert.equal(imageTokens(3136, 400), imageTokens(1568, 200));
  });

  it("takes a count's figure for its own family, an estimate's figure for any family, and never more than the bytes otherwise", () => {
    assert.equal(familyTokens({ tokens: 10, family: 'o200k', bytes: 100, source: 'tokenizer' }, 'o200k'), 10);
    const est = estimateText('Заголовок: пример текста для проверки.', 'o200k');
    assert.equal(familyTokens(est, 'o200k'), est.tokens);
    assert.equal(familyTokens(est, 'claude'), est.estimates!.claude);
    assert.ok(est.estimates!.claude > est.estimates!.o200k, 'the legacy Claude tokenizer spends more on Cyrillic');
    // A count made for another family, without estimates: the bytes bound it (a token is at least a byte).
    assert.equal(familyTokens({ tokens: 10, family: 'cl100k', bytes: 100, source: 'tokenizer' }, 'o200k'), 100);
  });

  it('counts a message with the tokenizer as exact, the byte estimate as not exact', async () => {
    const { counter } = await loadEncoding('o200k_base');
    const m = user('汉字测试，这是一段没有空格的中文文本。'.repeat(20));
    const exact = countMessageWith(m, 'o200k', (t) => countInFamily(t, 'o200k', counter));
    const est = estimateMessage(m, 'o200k');
    assert.equal(exact.exact, true);
    assert.equal(est.exact, false);
    assert.equal(exact.hash, est.hash);
    assert.ok(est.tokens >= exact.tokens, 'the estimate before the tokenizer answers is an upper bound');
  });

  it('hashes content, not timestamps or usage', () => {
    assert.equal(messageHash(user('x', 1)), messageHash(user('x', 2)));
    assert.notEqual(messageHash(user('x')), messageHash(user('y')));
    assert.notEqual(messageHash(user('x')), messageHash(assistant('x')));
    assert.notEqual(messageHash(toolResult('1', 'x')), messageHash(toolResult('2', 'x')));
  });

  it('counts tool definitions by name, description and schema', () => {
    const p = toolDefinitionParts([{ name: 'grep', description: 'Search files', inputSchema: { type: 'object' } }]);
    assert.deepEqual(p.texts, ['grep', 'Search files', '{"type":"object"}']);
    assert.ok(p.fixed > 0);
  });
});
