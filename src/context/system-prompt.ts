/**
 * Headroom's system prompt as ordered sections, static → dynamic, so the provider can cache the
 * stable prefix: base instructions, then rules/memory files (AGENTS.md, .headroom/rules). Dynamic
 * notes (context status, deferred tools) are appended by the loop after these. Pure.
 */
import type { SystemSection } from '../providers/types';
import { SECTION_IDS } from './prompt-components';
import { SMALL_WINDOW_RULES_BYTES } from './small-window';

/** A rules or memory file as read from the workspace. */
export interface RulesFile {
  path: string;
  /** The text read (possibly only the first `MAX_RULES_BYTES` of the file). */
  text: string;
  /** Byte size of the whole file on disk, when only part of it was read. Default: the text's size. */
  size?: number;
}

/** Rules files above this size are cut (and say so), so one huge file cannot take the window. */
export const MAX_RULES_BYTES = 32 * 1024;

export const BASE_INSTRUCTIONS = `You are Headroom, an AI coding agent working inside the user's VS Code workspace.
- Use the tools to read, list and search files before you change them; never guess file contents.
- Edits (write_file, edit_file) and commands (run_command) are shown to the user for approval. If one is rejected, do not retry it unchanged: ask or take another approach.
- Paths are relative to the workspace root; you cannot reach outside it.
- Large tool outputs are stored and replaced by a short stub with a ref_id: use read_result with offset/limit/grep to read what you need instead of re-running the tool.
- Some external tools may be deferred to save context; use tool_search to find and enable them.
- When the context is getting full you will see a note; compact_context frees space while keeping decisions, instructions and finished work.
- Be concise. Say what you changed and why, and what is left to do.`;

/** The base instructions for a small context window (`small-window.ts`): the same rules, in few words. */
export const COMPACT_INSTRUCTIONS = `You are Headroom, a coding agent in the user's VS Code workspace.
- Read files before changing them; paths are relative to the workspace root.
- Edits and commands need the user's approval; if one is rejected, do not repeat it.
- Large outputs are stored: read them with read_result. Find other tools with tool_search.
- Be brief.`;

/**
 * Builds the system sections for one request. `small`: a small context window, so the compact base
 * instructions and rules files cut at `SMALL_WINDOW_RULES_BYTES`.
 */
export function buildSystemSections(input: { rules: RulesFile[]; workspaceName?: string; small?: boolean }): SystemSection[] {
  const base = input.small ? COMPACT_INSTRUCTIONS : BASE_INSTRUCTIONS;
  const maxBytes = input.small ? SMALL_WINDOW_RULES_BYTES : MAX_RULES_BYTES;
  const sections: SystemSection[] = [
    { id: SECTION_IDS.base, text: base + (input.workspaceName ? `\nWorkspace: ${input.workspaceName}` : '') },
  ];
  const rules = input.rules
    .filter((r) => r.text.trim())
    .map((r) => {
      const bytes = Math.max(r.size ?? 0, Buffer.byteLength(r.text, 'utf8'));
      const text =
        bytes > maxBytes
          ? Buffer.from(r.text, 'utf8').subarray(0, maxBytes).toString('utf8') + `\n[… ${r.path} cut at ${maxBytes} of ${bytes} bytes]`
          : r.text;
      return `## ${r.path}\n${text.trim()}`;
    });
  if (rules.length) sections.push({ id: SECTION_IDS.rules, text: `# Project rules and memory (follow them)\n\n${rules.join('\n\n')}` });
  // One cache breakpoint after the last stable section.
  sections[sections.length - 1] = { ...sections[sections.length - 1], cacheBreakpoint: true };
  return sections;
}
