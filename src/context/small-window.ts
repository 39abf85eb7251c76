/**
 * When a context window is small, and what Headroom then sends less of: the one home of that line.
 * At 4,096 tokens the full system prompt and tool definitions (2,192 Llama 2 tokens) plus the output
 * reservation left ~800 tokens for the conversation; below this size Headroom sends a compact system
 * prompt, brief tool definitions and fewer tools (the others are found with tool_search), and cuts
 * rules files shorter, so that a 4k model keeps at least half its window for the conversation.
 * Pure.
 */

/** Windows up to this size (tokens) are small. */
export const SMALL_WINDOW = 8192;

/** Rules and memory files are cut at this many bytes in a small window (32 KiB otherwise). */
export const SMALL_WINDOW_RULES_BYTES = 1024;

export function isSmallWindow(contextWindow: number): boolean {
  return contextWindow > 0 && contextWindow <= SMALL_WINDOW;
}
