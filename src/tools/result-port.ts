/**
 * Builds a `ResultPort` over any blob store that can put and read whole texts, so every store pages
 * with the same semantics (`pageBuffer`). Wiring for the session's result store:
 * `resultPortOver({ put: (tool, _id, text) => store.put(sessionId, tool, text).then((m) => m.refId), read: … })`.
 */
import { PATTERN_TIMEOUT_MS, runPatternJob } from './pattern-runner';
import type { ResultPage, ResultPageOptions, ResultPort } from './ports';
import { pageBuffer } from './result-paging';

/**
 * `pageBuffer`, with a grep pattern (from the model) evaluated in the pattern worker under a time
 * bound: a catastrophic regex rejects with a message instead of freezing the host.
 */
export async function pageResult(
  content: Uint8Array,
  options: ResultPageOptions,
  toolName?: string,
  timeoutMs = PATTERN_TIMEOUT_MS,
): Promise<ResultPage> {
  if (!options.grep) return pageBuffer(content, options, toolName);
  return await runPatternJob(
    { type: 'grep-page', content, options, toolName },
    { timeoutMs, what: `The regular expression /${options.grep}/` },
  );
}

export interface ResultBlobs {
  /** Stores the text; resolves to its ref id. */
  put(toolName: string, toolCallId: string, content: string): Promise<string>;
  /** The whole stored text and the tool that produced it; undefined for an unknown ref id. */
  read(refId: string): Promise<{ toolName: string; content: string } | undefined>;
}

export function resultPortOver(blobs: ResultBlobs): ResultPort {
  return {
    put: ({ toolName, toolCallId, content }) => blobs.put(toolName, toolCallId, content),
    async page(refId, options) {
      const blob = await blobs.read(refId);
      return blob ? pageResult(Buffer.from(blob.content, 'utf8'), options, blob.toolName) : undefined;
    },
  };
}
