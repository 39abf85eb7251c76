import assert from 'node:assert/strict';
import { checkBase64Image, checkImage, imageTokens, MAX_IMAGE_BYTES, sniffImage } from '../../src/common/images';
import { HeadroomError } from '../../src/common/errors';
import { promptMessage } from '../../src/app/prompt-message';
import { estimateMessage, MESSAGE_OVERHEAD } from '../../src/context/message-tokens';
import { AnthropicProvider } from '../../src/providers/anthropic';
import { OpenAIProvider } from '../../src/providers/openai';
import { OpenAIResponsesProvider } from '../../src/providers/openai-responses';
import type { Provider } from '../../src/providers/provider';
import { userItem } from '../../src/panel/transcript-items';
import { turnRow } from '../../src/store/session-rows';
import { DEFAULT_LIMITS } from '../../src/store/store';
import { startFakeProvider, type FakeProvider } from '../fixtures/fake-provider';
import { request, run } from '../fixtures/fake-provider/factories';
import { makePng } from '../fixtures/images/make-png';

const png = makePng(1000, 750);
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x4a, 0x46, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03]);
const gif = Buffer.from('GIF89a\x40\x01\xf0\x00\x00\x00\x00;', 'latin1');
const webp = Buffer.concat([
  Buffer.from('RIFF\0\0\0\0WEBPVP8X', 'latin1'),
  Buffer.alloc(8),
  Buffer.from([0x1f, 0x03, 0x00, 0xdf, 0x01, 0x00]),
]);

describe('image input: what the composer accepts', () => {
  it('reads the type and size from the bytes of PNG, JPEG, GIF and WebP', () => {
    assert.deepEqual(sniffImage(png), { mediaType: 'image/png', width: 1000, height: 750 });
    assert.deepEqual(sniffImage(jpeg), { mediaType: 'image/jpeg', width: 640, height: 480 });
    assert.deepEqual(sniffImage(gif), { mediaType: 'image/gif', width: 320, height: 240 });
    assert.deepEqual(sniffImage(webp), { mediaType: 'image/webp', width: 800, height: 480 });
  });

  it('refuses a file named like a PNG whose bytes are not an image, and anything over 2.5 MB', () => {
    const fake = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const notPng = checkImage(fake);
    assert.equal(notPng.ok, false);
    assert.match(!notPng.ok ? notPng.reason : '', /not a PNG, JPEG, GIF or WebP/);
    // A real PNG header padded past the limit: refused by its size, before anything else.
    const big = Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES + 1 - png.length)]);
    const over = checkImage(big);
    assert.equal(over.ok, false);
    assert.match(!over.ok ? over.reason : '', /at most 2\.5 MB/);
    assert.equal(checkImage(Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES - png.length)])).ok, true, 'exactly 2.5 MB is allowed');
    assert.match(JSON.stringify(checkImage(makePng(9000, 10))), /at most 8000 px/);
    assert.equal(checkBase64Image('not base64!').ok, false);
    assert.equal(checkBase64Image('A'.repeat(8_000_000)).ok, false);
  });

  it('builds the user message with the images first, sized from their bytes, and refuses what it must', () => {
    const data = png.toString('base64');
    const m = promptMessage('what is this?', [{ mediaType: 'image/jpeg', data }], { provider: 'anthropic', model: 'claude-sonnet-4-5' }, 7);
    // The declared type is not trusted: the bytes say PNG.
    assert.deepEqual(m, {
      role: 'user',
      content: [
        { type: 'image', mediaType: 'image/png', data, width: 1000, height: 750 },
        { type: 'text', text: 'what is this?' },
      ],
      timestamp: 7,
    });
    assert.throws(
      () => promptMessage('x', [{ mediaType: 'image/png', data }], { provider: 'openai', model: 'o3-mini' }),
      (e: unknown) => e instanceof HeadroomError && /o3-mini takes no images/.test(e.message),
    );
    const fake = Buffer.from('GIF? no: plain text').toString('base64');
    assert.throws(
      () => promptMessage('x', [{ mediaType: 'image/png', data: fake }], { provider: 'anthropic', model: 'claude-sonnet-4-5' }),
      /Image 1 was not sent: it is not a PNG/,
    );
    // A server's model: unknown, so the image goes and the server decides.
    assert.equal(
      promptMessage('x', [{ mediaType: 'image/png', data }], { provider: 'openai-compatible', model: 'llava' }).content.length,
      2,
    );
    assert.deepEqual(promptMessage('plain', undefined, { provider: 'openai', model: 'o3-mini' }).content, [
      { type: 'text', text: 'plain' },
    ]);
  });

  it('keeps the images of one message within what the store keeps of a message (4 MB)', () => {
    const target = { provider: 'anthropic', model: 'claude-sonnet-4-5' } as const;
    const half = Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES / 2 - png.length)]).toString('base64');
    // The most a message may carry, with the longest text a prompt may have, is stored.
    const full = promptMessage(
      'x'.repeat(500_000),
      [
        { mediaType: 'image/png', data: half },
        { mediaType: 'image/png', data: half },
      ],
      target,
    );
    assert.doesNotThrow(() => turnRow(full, 0, {}, DEFAULT_LIMITS.maxMessageBytes));
    const more = Buffer.concat([png, Buffer.alloc(MAX_IMAGE_BYTES / 2 - png.length + 10)]).toString('base64');
    assert.throws(
      () =>
        promptMessage(
          'x',
          [
            { mediaType: 'image/png', data: half },
            { mediaType: 'image/png', data: more },
          ],
          target,
        ),
      /The images were not sent: together they are 2\.5 MB; the images of one message can be at most 2\.5 MB/,
    );
  });

  it('counts an attached image in the meter by its pixels (1000×750 → 1000 tokens)', () => {
    const data = png.toString('base64');
    const withImage = promptMessage('', [{ mediaType: 'image/png', data }], { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    const without = promptMessage('', undefined, { provider: 'anthropic', model: 'claude-sonnet-4-5' });
    assert.equal(estimateMessage(withImage, 'o200k').tokens - estimateMessage(without, 'o200k').tokens, 1000);
    assert.equal(imageTokens(1000, 750), 1000);
    assert.ok(estimateMessage(without, 'o200k').tokens >= MESSAGE_OVERHEAD);
  });

  it('shows the images in the user bubble as data: URLs, and leaves out a type the panel does not show', () => {
    const data = png.toString('base64');
    const item = userItem('u1', {
      role: 'user',
      content: [
        { type: 'image', mediaType: 'image/png', data },
        { type: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zz4=' },
        { type: 'text', text: 'look' },
      ],
      timestamp: 0,
    });
    assert.deepEqual(item, { kind: 'user', id: 'u1', text: 'look', images: [`data:image/png;base64,${data}`] });
  });
});

describe('image input: on the wire, against the fake provider', () => {
  let server: FakeProvider;
  before(async () => {
    server = await startFakeProvider();
  });
  after(() => server.close());

  const message = (mediaType = 'image/png') =>
    promptMessage('describe it', [{ mediaType, data: png.toString('base64') }], { provider: 'anthropic', model: 'claude-sonnet-4-5' });
  const providers = (): Array<[string, Provider]> => [
    ['anthropic', new AnthropicProvider({ apiKey: 'k', baseUrl: server.baseUrl, retry: { maxRetries: 0 } })],
    ['openai', new OpenAIProvider({ provider: 'openai-compatible', apiKey: 'k', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } })],
    ['responses', new OpenAIResponsesProvider({ apiKey: 'k', baseUrl: server.openaiBaseUrl, retry: { maxRetries: 0 } })],
  ];

  it('sends an Anthropic image block, a Chat Completions image_url and a Responses input_image the server accepts', async () => {
    for (const [protocol, provider] of providers()) {
      const { message: reply } = await run(provider, request([message()]));
      const rec = server.requests.at(-1)!;
      assert.equal(rec.protocol, protocol);
      assert.equal(reply.stopReason, 'end', `${protocol}: ${JSON.stringify(reply.error)}`);
      assert.deepEqual(rec.images, [{ mediaType: 'image/png', bytes: png.length }], protocol);
    }
    const anthropic = server.requests.find((r) => r.protocol === 'anthropic')!;
    const block = (anthropic.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0].content[0];
    assert.deepEqual(Object.keys(block).sort(), ['source', 'type']);
    assert.equal((block.source as { media_type: string }).media_type, 'image/png');
    const chat = server.requests.find((r) => r.protocol === 'openai')!;
    const part = (chat.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>).find((m) => m.role === 'user')!
      .content[0];
    assert.equal(part.type, 'image_url');
    assert.match((part.image_url as { url: string }).url, /^data:image\/png;base64,iVBOR/);
  });

  it('the fake refuses an image whose bytes are not its media type, as the real APIs do', async () => {
    const wrong = message();
    // Bypass promptMessage's correction: a client that lies about the type.
    (wrong.content[0] as { mediaType: string }).mediaType = 'image/jpeg';
    for (const [protocol, provider] of providers()) {
      const { message: reply } = await run(provider, request([wrong]));
      assert.equal(reply.stopReason, 'error', protocol);
      assert.equal(server.requests.at(-1)!.status, 400, protocol);
      assert.equal(server.requests.at(-1)!.outcome, 'invalid_image', protocol);
    }
  });
});
