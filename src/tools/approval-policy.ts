/**
 * Which edits and commands run without asking: the one home for that decision. The user's settings
 * (`headroom.autoApprove.*`: edits off and no commands by default) plus what the user allowed "for
 * this session" from an approval card — an exact command, every edit of one tool, or reading one
 * secret-looking file. Read-only tools never ask, except to read such a file. Other callers (e.g. the policy for external tools) ask `allows` too. Pure; never throws.
 */
import type { ApprovalRequest } from './ports';

/** The `headroom.autoApprove.*` settings. The defaults are the safe ones. */
export interface AutoApproveSettings {
  /** Edits and new files run without asking (default false). */
  edits: boolean;
  /**
   * Commands that run without asking: an entry allows that exact command, or the command followed by
   * more arguments ("npm test" allows "npm test -- --grep x"). Never a command that chains or
   * redirects with shell operators.
   */
  commands: readonly string[];
}

export const DEFAULT_AUTO_APPROVE: AutoApproveSettings = { edits: false, commands: [] };

/** Shell syntax that could run something other than the allowed command or write elsewhere. */
const SHELL_OPERATORS = /[;&|`<>\n\r]|\$\(/;

/** Whether an allow-list entry covers `command` (exact, or as a prefix at a word boundary). */
export function commandAllowed(command: string, entry: string): boolean {
  const c = command.trim();
  const e = entry.trim();
  if (!e || SHELL_OPERATORS.test(c)) return false;
  return c === e || c.startsWith(`${e} `);
}

export class ApprovalPolicy {
  private readonly commands = new Set<string>();
  private readonly tools = new Set<string>();
  /** Real paths of secret-looking files the user let the model read for this session. */
  private readonly secrets = new Set<string>();

  /** @param settings read fresh on each decision (the user may change settings mid-session). */
  constructor(private readonly settings: () => AutoApproveSettings = () => DEFAULT_AUTO_APPROVE) {}

  /** True when the request may proceed without asking the user. */
  allows(request: ApprovalRequest): boolean {
    const s = this.settings();
    if (request.kind === 'edit') return s.edits || this.tools.has(request.toolName);
    // External tools: allowed only for this session by the user (settings allow-list them elsewhere).
    if (request.kind === 'tool') return this.tools.has(request.toolName);
    // A secret file: never by settings (headroom.secretFiles.allow keeps such files from asking at all).
    if (request.kind === 'secret') return this.secrets.has(request.target);
    const command = request.command.trim();
    return this.commands.has(command) || s.commands.some((entry) => commandAllowed(command, entry));
  }

  /** "Allow for this session": this exact command again, every edit of this tool, or reading this very file. */
  allowForSession(request: ApprovalRequest): void {
    if (request.kind === 'command') this.commands.add(request.command.trim());
    else if (request.kind === 'secret') this.secrets.add(request.target);
    else this.tools.add(request.toolName);
  }

  /** A different session starts: its allowances start empty. */
  resetSession(): void {
    this.commands.clear();
    this.tools.clear();
    this.secrets.clear();
  }
}
