import { AssistantBuilder } from './assistant-builder';
import { lmError, lmText, toLmMessages, type LmMessage, type LmStreamPart } from './lm-chat-convert';
import type { Provider } from './provider';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetries } from './retry';
import type { AssistantMessage, ProviderRequest, StreamEvent, ToolDefinition } from './types';
import { estimateTokens } from './usage-estimate';

/**
 * What the VS Code Language Model API adapter needs from VS Code, as plain data (implemented in
 * `src/platform/vscode-lm.ts`). Both methods may throw (a `LanguageModelError`, a cancellation);
 * the adapter turns that into data.
 */
export interface LmChatPort {
  /** Sends one request to the chosen chat model (asking the person's consent the first time) and returns its stream. */
  send(messages: LmMessage[], tools: ToolDefinition[], signal: AbortSignal): Promise<AsyncIterable<LmStreamPart>>;
  /** The model's own token count of `text`. */
  countTokens(text: string, signal: AbortSignal): Promise<number>;
}

/**
 * Adapter for a chat model from VS Code's Language Model API (Copilot and any extension that
 * registers one): no key, streamed text and tool calls. The API reports no usage, so usage is the
 * model's own `countTokens` of the prompt and the reply, marked `estimated`. See `Provider`: never
 * throws; a Blocked (quota) error is retried like a rate limit.
 */
export class LmChatProvider implements Provider {
  readonly id = 'vscode-lm' as const;
  private readonly policy: RetryPolicy;

  constructor(
    private readonly port: LmChatPort,
    retry?: Partial<RetryPolicy>,
  ) {
    this.policy = { ...DEFAULT_RETRY_POLICY, ...retry };
  }

  stream(req: ProviderRequest, signal: AbortSignal = new AbortController().signal): AsyncIterable<StreamEvent> {
    const aborted = () => new AssistantBuilder(this.id, req.model).fail({ kind: 'aborted', message: 'Request aborted.' });
    return withRetries((s) => this.attempt(req, s), this.policy, signal, aborted);
  }

  private async *attempt(req: ProviderRequest, signal: AbortSignal): AsyncGenerator<StreamEvent, AssistantMessage> {
    const b = new AssistantBuilder(this.id, req.model);
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    const messages = toLmMessages(
      req.system
        .map((s) => s.text)
        .filter(Boolean)
        .join('\n\n'),
      req.messages,
      req.trailingNote,
    );
    let calls = 0;
    try {
      const parts = await this.port.send(messages, req.tools, signal);
      for await (const part of parts) {
        b.started = true;
        if (part.kind === 'text') {
          const e = b.text('text', part.text);
          if (e) yield e;
        } else {
          // Tool calls arrive whole: start, arguments and end at once.
          const key = `tool${calls++}`;
          const start = b.toolStart(key, part.callId, part.name);
          if (start) yield start;
          b.toolArgs(key, JSON.stringify(part.input ?? {}));
          const end = b.toolEnd(key);
          if (end) yield end;
        }
      }
    } catch (err) {
      return b.fail(signal.aborted ? { kind: 'aborted', message: 'Request aborted.' } : lmError(err));
    }
    if (signal.aborted) return b.fail({ kind: 'aborted', message: 'Request aborted.' });
    const prompt = lmText(messages) + JSON.stringify(req.tools);
    b.usage = {
      input: await this.count(prompt, signal),
      output: await this.count(b.outputText(), signal),
      cacheRead: 0,
      cacheWrite: 0,
      estimated: true,
    };
    return b.finish();
  }

  /** The model's count, or the byte estimate when counting fails. */
  private async count(text: string, signal: AbortSignal): Promise<number> {
    if (!text) return 0;
    try {
      return await this.port.countTokens(text, signal);
    } catch {
      return estimateTokens(text);
    }
  }
}
