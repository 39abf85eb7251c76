import * as vscode from 'vscode';

/**
 * A chat model behind VS Code's Language Model API that behaves like the fake provider: scripted
 * text and tool calls, a small window it enforces with an overflow error worded like a real one,
 * and a token count harsher than Headroom's own estimate (1 token per 3 characters). The test-runner
 * extension (test/runner-extension) registers the provider for vendor `headroom-fake` and calls into
 * the object this module installs on `globalThis`, so the model runs in the same extension host as
 * the suites that script it.
 */

/** One scripted reply: text, or a tool call (with optional text before it). */
export type FakeLmReply = { text: string } | { toolCall: { name: string; input: Record<string, unknown> }; text?: string };

/** What the model received, per request. */
export interface FakeLmRequest {
  model: string;
  /** Its own count of the whole request (what it compares with the window). */
  inputTokens: number;
  /** 'ok', or 'overflow' when it refused the request as too long. */
  outcome: 'ok' | 'overflow';
  /** Every text, tool call and tool result in the request, flattened, for assertions. */
  text: string;
  toolResults: string[];
  toolNames: string[];
}

export interface FakeLmModel {
  id: string;
  window: number;
}

/** The parts of the Language Model Chat Provider API (VS Code ≥ 1.104) used here; @types/vscode is older. */
interface ChatInformation {
  id: string;
  name: string;
  family: string;
  version: string;
  maxInputTokens: number;
  maxOutputTokens: number;
  capabilities: { toolCalling: boolean };
}
type RequestPart =
  vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart | { value?: unknown };
interface RequestMessage {
  content: readonly RequestPart[];
}
interface ResponseProgress {
  report(part: vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart): void;
}

const countText = (text: string) => Math.ceil(text.length / 3);

function flatten(messages: readonly RequestMessage[]): Pick<FakeLmRequest, 'text' | 'toolResults'> {
  const texts: string[] = [];
  const toolResults: string[] = [];
  for (const m of messages) {
    for (const p of m.content) {
      if (p instanceof vscode.LanguageModelTextPart) texts.push(p.value);
      else if (p instanceof vscode.LanguageModelToolCallPart) texts.push(`${p.name} ${JSON.stringify(p.input)}`);
      else if (p instanceof vscode.LanguageModelToolResultPart) {
        const r = p.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : '')).join('');
        toolResults.push(r);
        texts.push(r);
      }
    }
  }
  return { text: texts.join('\n'), toolResults };
}

export class FakeLanguageModels {
  readonly script: FakeLmReply[] = [];
  readonly requests: FakeLmRequest[] = [];
  /**
   * Refuse the next chat request (one with tools) as too long, whatever its size (the way a server's own
   * count can disagree). A summary request Headroom sends first (a compaction on its own threshold) is
   * answered: the refusal is meant for the turn.
   */
  overflowNext = false;
  /** What a request without tools gets (Headroom's summary requests offer none; chat turns always do). */
  summaryText = 'Summary: the user asked questions about the workspace; each was answered. Next: keep answering.';
  private calls = 0;

  constructor(readonly models: FakeLmModel[]) {}

  information(): ChatInformation[] {
    return this.models.map((m) => ({
      id: m.id,
      name: `Fake ${m.id}`,
      family: 'headroom-fake',
      version: '1',
      maxInputTokens: m.window,
      maxOutputTokens: 1_024,
      capabilities: { toolCalling: true },
    }));
  }

  count(text: string | RequestMessage): number {
    return typeof text === 'string' ? countText(text) : countText(flatten([text]).text);
  }

  async respond(
    model: ChatInformation,
    messages: readonly RequestMessage[],
    options: { tools?: ReadonlyArray<{ name: string }> },
    progress: ResponseProgress,
  ): Promise<void> {
    const flat = flatten(messages);
    const inputTokens = countText(flat.text) + countText(JSON.stringify(options.tools ?? []));
    const window = this.models.find((m) => m.id === model.id)?.window ?? 0;
    const chat = (options.tools?.length ?? 0) > 0;
    const overflow = (this.overflowNext && chat) || inputTokens > window;
    if (chat) this.overflowNext = false;
    const toolNames = (options.tools ?? []).map((t) => t.name);
    this.requests.push({ model: model.id, inputTokens, outcome: overflow ? 'overflow' : 'ok', ...flat, toolNames });
    if (overflow) throw new Error(`prompt is too long: ${inputTokens} tokens > ${window} maximum`);
    const reply: FakeLmReply = options.tools?.length ? (this.script.shift() ?? { text: 'OK.' }) : { text: this.summaryText };
    // Yield once so the reply streams after the request returned, as a real model's does.
    await new Promise((r) => setTimeout(r, 0));
    if (reply.text) progress.report(new vscode.LanguageModelTextPart(reply.text));
    if ('toolCall' in reply)
      progress.report(new vscode.LanguageModelToolCallPart(`call_${++this.calls}`, reply.toolCall.name, reply.toolCall.input));
  }
}

interface FakeLmGlobal {
  __headroomFakeLm?: FakeLanguageModels;
  __headroomFakeLmChanged?: () => void;
}

/**
 * Installs fake models for the runner extension's provider to serve; false when no provider was
 * registered (not under the code-server runner, or a VS Code without the provider API).
 */
export function installFakeLanguageModels(fake: FakeLanguageModels): boolean {
  const g = globalThis as FakeLmGlobal;
  if (!g.__headroomFakeLmChanged) return false;
  g.__headroomFakeLm = fake;
  g.__headroomFakeLmChanged();
  return true;
}

export function uninstallFakeLanguageModels(): void {
  const g = globalThis as FakeLmGlobal;
  g.__headroomFakeLm = undefined;
  g.__headroomFakeLmChanged?.();
}

/**
 * Resolves once VS Code offers every model of `fake` (it refreshes its list after the provider says
 * the list changed, later on a busy machine); rejects after `timeoutMs`. Before that, Headroom's
 * `selectChatModels` finds no model: no count, no window, and the turn runs on safe estimates.
 */
export async function fakeModelsOffered(fake: FakeLanguageModels, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const offered = await vscode.lm.selectChatModels();
    if (fake.models.every((m) => offered.some((o) => o.id === m.id))) return;
    if (Date.now() > deadline) throw new Error(`VS Code does not offer the fake models after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
