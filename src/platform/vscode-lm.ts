import * as vscode from 'vscode';
import type { LmChatPort } from '../providers/lm-chat';
import type { LmMessage, LmPart, LmStreamPart } from '../providers/lm-chat-convert';

/**
 * The vscode side of the Language Model API provider: picks the chat model, converts the plain
 * messages of `providers/lm-chat-convert.ts` to `LanguageModelChatMessage`s and the response stream
 * back, and bridges the turn's AbortSignal to a CancellationToken. Everything else (mapping,
 * errors, usage, retries) is in the pure `LmChatProvider`.
 */

/** Why Headroom asks to use the model; VS Code shows it in the consent dialog. */
const JUSTIFICATION = 'Headroom, the coding agent in the side panel, sends your chat, its tool calls and their results to this model.';

/** The model with id `modelId`, or the first chat model any extension offers when `modelId` is empty. */
export async function pickChatModel(modelId: string): Promise<vscode.LanguageModelChat | undefined> {
  const models = await vscode.lm.selectChatModels(modelId ? { id: modelId } : undefined);
  return models[0];
}

function toVscodePart(p: LmPart): vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart {
  if (p.kind === 'text') return new vscode.LanguageModelTextPart(p.text);
  if (p.kind === 'toolCall') return new vscode.LanguageModelToolCallPart(p.callId, p.name, p.input);
  return new vscode.LanguageModelToolResultPart(p.callId, [new vscode.LanguageModelTextPart(p.text)]);
}

function toVscodeMessage(m: LmMessage): vscode.LanguageModelChatMessage {
  const role = m.role === 'user' ? vscode.LanguageModelChatMessageRole.User : vscode.LanguageModelChatMessageRole.Assistant;
  return new vscode.LanguageModelChatMessage(role, m.parts.map(toVscodePart));
}

function tokenFor(signal: AbortSignal): vscode.CancellationTokenSource {
  const source = new vscode.CancellationTokenSource();
  if (signal.aborted) source.cancel();
  else signal.addEventListener('abort', () => source.cancel(), { once: true });
  return source;
}

async function* plainParts(stream: AsyncIterable<unknown>, source: vscode.CancellationTokenSource): AsyncGenerator<LmStreamPart> {
  try {
    for await (const part of stream) {
      if (part instanceof vscode.LanguageModelTextPart) yield { kind: 'text', text: part.value };
      else if (part instanceof vscode.LanguageModelToolCallPart)
        yield { kind: 'toolCall', callId: part.callId, name: part.name, input: part.input };
    }
  } finally {
    source.dispose();
  }
}

/** The port for the model `modelId` ('' = the first available). A missing model fails as NotFound. */
export function createVscodeLmPort(modelId: string): LmChatPort {
  const model = async () => {
    const m = await pickChatModel(modelId);
    if (!m)
      throw Object.assign(new Error(modelId ? `no chat model "${modelId}" is available` : 'no chat model is available'), {
        code: 'NotFound',
      });
    return m;
  };
  return {
    async send(messages, tools, signal) {
      const m = await model();
      const source = tokenFor(signal);
      const response = await m.sendRequest(
        messages.map(toVscodeMessage),
        {
          justification: JUSTIFICATION,
          tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
          toolMode: vscode.LanguageModelChatToolMode.Auto,
        },
        source.token,
      );
      return plainParts(response.stream, source);
    },
    async countTokens(text, signal) {
      const m = await model();
      const source = tokenFor(signal);
      try {
        return await m.countTokens(text, source.token);
      } finally {
        source.dispose();
      }
    },
  };
}
