/**
 * Which external tools (`vscode.lm.tools`) Headroom offers to the model, and which run without
 * asking. VS Code lists its own internal tools there too (`run_in_terminal`, `vscode_editFile_internal`,
 * `create_and_run_task`, `runSubagent`, …): offered as-is they would let the model edit files and run
 * commands past Headroom's approval and trust gate. Pure (no vscode); never throws.
 */
import picomatch from 'picomatch';

/** Where an external tool comes from. */
export type ExternalToolOrigin = { kind: 'extension'; id: string; label: string } | { kind: 'mcp'; server: string } | { kind: 'internal' };

/**
 * The origin of a tool from `LanguageModelToolInformation.source` (newer VS Code): an extension source
 * has `id` and `label`, an MCP source `label` and `name`; VS Code's internal tools have none. Read by
 * shape, because the field is not in every `@types/vscode`; anything unrecognised is `internal`.
 */
export function toolOrigin(source: unknown): ExternalToolOrigin {
  if (typeof source !== 'object' || source === null) return { kind: 'internal' };
  const s = source as { id?: unknown; label?: unknown; name?: unknown };
  const label = typeof s.label === 'string' && s.label.trim() ? s.label.trim() : undefined;
  if (typeof s.id === 'string' && s.id.trim()) return { kind: 'extension', id: s.id.trim(), label: label ?? s.id.trim() };
  const name = typeof s.name === 'string' && s.name.trim() ? s.name.trim() : undefined;
  if (label ?? name) return { kind: 'mcp', server: (label ?? name)! };
  return { kind: 'internal' };
}

/**
 * Extensions whose tools are VS Code's own agent internals, written for VS Code's chat (they expect
 * its invocation token and confirmation UI): treated like built-in extensions. Compared lower-case.
 */
export const VSCODE_AGENT_EXTENSIONS: readonly string[] = ['github.copilot-chat', 'github.copilot'];

/** Names VS Code core uses for internal tools; refused whatever source they claim. */
const INTERNAL_NAMES =
  /^(?:vscode_|copilot_)|^(?:run_in_terminal|send_to_terminal|get_terminal_output|create_and_run_task|run_task|runSubagent|runTests|manage_todo_list)$/;

export interface OfferOptions {
  /** True for an extension shipped with VS Code (the vscode edge reads `packageJSON.isBuiltin`). */
  isBuiltinExtension(id: string): boolean;
}

/** A check that fails counts as built-in: unknown is not safe. */
function isBuiltin(options: OfferOptions, id: string): boolean {
  try {
    return options.isBuiltinExtension(id);
  } catch {
    return true;
  }
}

/**
 * The origin of a tool Headroom may offer, or undefined when it must never be offered: only tools
 * contributed by third-party extensions and MCP servers qualify; VS Code's internal tools, tools of
 * built-in extensions and of VS Code's own agent extensions never do.
 */
export function offerableOrigin(tool: { name: string; source?: unknown }, options: OfferOptions): ExternalToolOrigin | undefined {
  if (INTERNAL_NAMES.test(tool.name)) return undefined;
  const origin = toolOrigin(tool.source);
  if (origin.kind === 'internal') return undefined;
  if (origin.kind === 'extension') {
    const id = origin.id.toLowerCase();
    if (id.startsWith('vscode.') || VSCODE_AGENT_EXTENSIONS.includes(id)) return undefined;
    if (isBuiltin(options, origin.id)) return undefined;
  }
  return origin;
}

/** How the approval names a tool's origin: `the extension "Python" (ms-python.python)` / `the MCP server "github"`. */
export function describeOrigin(origin: ExternalToolOrigin): string {
  if (origin.kind === 'extension') return `the extension "${origin.label}" (${origin.id})`;
  if (origin.kind === 'mcp') return `the MCP server "${origin.server}"`;
  return 'VS Code';
}

/**
 * True when the user allow-listed `name` (setting `headroom.externalTools.allow`: exact names or
 * globs such as `github_*`). Every other external tool is treated as mutating and asks first.
 */
export function isAllowListed(name: string, allow: readonly string[]): boolean {
  const patterns = allow.filter((p) => typeof p === 'string' && p.trim() !== '').map((p) => p.trim());
  if (patterns.length === 0) return false;
  return picomatch(patterns, { nocase: false, dot: true })(name);
}
