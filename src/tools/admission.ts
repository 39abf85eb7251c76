/**
 * Admission control for tool output. Every result passes through `admitResult` before it joins the
 * conversation: small results that fit go in as they are; anything over the byte threshold, or
 * refused by the context guard's `admit`, is stored through the `ResultPort` and replaced by a
 * bounded stub that tells the model how to read it (`read_result`). A 10 MB output or a 1 MB single
 * line therefore never enters the context.
 */
import { errorMessage } from '../common/errors';
import type { ResultPort } from './ports';
import { resultText, type ToolResult } from './tool-result';
import { modelNumber } from '../common/model-numbers';

export const DEFAULT_OFFLOAD_THRESHOLD_BYTES = 4096;

/** About the size of the notice that replaces a refused never-offload result. */
const REFUSAL_BYTES = 512;
const PREVIEW_LINES = 5;
const PREVIEW_LINE_CHARS = 100;
const PREVIEW_BUDGET_BYTES = 360;
/** How much of the output is scanned for preview lines, whatever its size. */
const PREVIEW_SCAN_CHARS = 4096;

/**
 * What the guard decides on. The text is passed so the guard counts it exactly as it will count it in
 * the request (a safe estimate from its composition); offloaded text is never tokenized.
 */
export interface ResultSizes {
  toolName: string;
  bytes: number;
  text: string;
}

export type AdmitDecision = 'inline' | 'offload';

export interface AdmissionOptions {
  /**
   * The context guard's verdict on live headroom for inlining a result of these sizes. Default:
   * always 'inline'. The byte threshold is applied here, so the guard should judge headroom only
   * (with `guard.admit`, pass `offloadThresholdBytes: Infinity`): a read_result page over 4 KiB that
   * fits must not be refused.
   */
  admit?: (sizes: ResultSizes) => AdmitDecision;
  store: ResultPort;
  thresholdBytes?: number;
  /** Whether the named tool is declared `neverOffload` (its own definition says so). Default: none is. */
  neverOffload?: (toolName: string) => boolean;
}

/**
 * Returns the result to put in the conversation: `result` itself when admitted inline, else a stub
 * with `refId` set. Never throws: if the store fails, a bounded preview without a ref is returned.
 */
export async function admitResult(result: ToolResult, options: AdmissionOptions): Promise<ToolResult> {
  const text = resultText(result);
  const bytes = Buffer.byteLength(text, 'utf8');
  const sizes: ResultSizes = { toolName: result.toolName, bytes, text };
  const threshold = options.thresholdBytes ?? DEFAULT_OFFLOAD_THRESHOLD_BYTES;
  const neverOffload = options.neverOffload?.(result.toolName) === true;
  let decision: AdmitDecision;
  try {
    // A result over the threshold is stored whatever the guard says: not asking spares counting 10 MB.
    decision = bytes > threshold && !neverOffload ? 'offload' : options.admit ? options.admit(sizes) : 'inline';
  } catch {
    decision = 'offload'; // a broken guard must not let a huge result through
  }

  if (neverOffload) {
    // A result no larger than the refusal would be goes in as it is (e.g. read_result saying a compaction is scheduled).
    if (decision === 'inline' || bytes <= REFUSAL_BYTES) return result;
    return withText(
      result,
      `[${result.toolName} output of ${modelNumber(bytes)} bytes does not fit in the remaining context. ` +
        'Ask for less (read_result: a smaller limit, or grep), or call compact_context first.]',
      true,
    );
  }
  if (bytes <= threshold && decision === 'inline') return result;

  try {
    const refId = await options.store.put({ toolName: result.toolName, toolCallId: result.toolCallId, content: text });
    return {
      ...withText(result, buildStub(result.toolName, bytes, text, refId), result.isError),
      refId,
      stored: { bytes, lines: countLines(text) },
    };
  } catch (err) {
    return withText(
      result,
      `[Tool result of ${modelNumber(bytes)} bytes from "${result.toolName}" could not be stored (${clipChars(errorMessage(err), 120)}) ` +
        `and was dropped. First lines: ${previewLines(text)}]`,
      result.isError,
    );
  }
}

/** The stub that replaces an offloaded result. Bounded to a few hundred bytes whatever `text` is. */
export function buildStub(toolName: string, bytes: number, text: string, refId: string): string {
  return (
    `[Tool result stored — ${modelNumber(bytes)} bytes from "${toolName}". First lines: ${previewLines(text)}] ` +
    `read_result ref_id="${refId}" offset/limit/grep`
  );
}

/**
 * The first lines a stub shows, for people: the tool card of a stored result shows them and an Open
 * link, never the model-facing `read_result ref_id=…` instruction. Undefined when `text` is no stub.
 */
export function stubPreview(text: string): string | undefined {
  const head = '[Tool result stored — ';
  const lines = '. First lines: ';
  const tail = text.lastIndexOf('] read_result ref_id="');
  const from = text.indexOf(lines);
  if (!text.startsWith(head) || from < 0 || tail < from) return undefined;
  return text.slice(from + lines.length, tail);
}

function withText(result: ToolResult, text: string, isError: boolean): ToolResult {
  const images = result.content.filter((p) => p.type === 'image');
  return { ...result, content: [{ type: 'text', text }, ...images], isError };
}

function clipChars(s: string, max: number): string {
  const chars = Array.from(s.slice(0, max * 2));
  return chars.length > max ? chars.slice(0, max).join('') + '…' : chars.join('');
}

function previewLines(text: string): string {
  const head = text.slice(0, PREVIEW_SCAN_CHARS);
  const lines = head
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '');
  const out: string[] = [];
  let budget = PREVIEW_BUDGET_BYTES;
  for (const line of lines.slice(0, PREVIEW_LINES)) {
    let shown = clipChars(line, PREVIEW_LINE_CHARS);
    while (Buffer.byteLength(shown) > budget && shown.length > 1) shown = clipChars(shown, Math.floor(Array.from(shown).length * 0.7));
    if (Buffer.byteLength(shown) > budget) break;
    out.push(shown);
    budget -= Buffer.byteLength(shown) + 1;
    if (budget < 8) break;
  }
  const more = lines.length > out.length || text.length > head.length;
  return out.length ? out.join('\n') + (more ? '\n…' : '') : '(no text)';
}

/** Lines of `text` as an editor counts them (a trailing newline does not start another). */
export function countLines(text: string): number {
  if (!text) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}
