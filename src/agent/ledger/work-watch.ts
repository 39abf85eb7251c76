/**
 * The turn's tool watch over the work ledger (`ToolWatch` of `turn-config.ts`): before a call runs it
 * asks the repeat guard whether the work is done already (and answers for the call when it is), and
 * around a command or an external tool it walks the workspace's file versions, so the ledger records
 * the files they changed and the state a command left. Never throws, never rejects.
 */
import type { ToolCallPart } from '../../providers/types';
import { changedFiles, fileVersions, versionsDigest, type FileVersionOptions, type FileVersions } from '../../tools/file-versions';
import type { WorkspacePort } from '../../tools/ports';
import { textResult, type ToolResult } from '../../tools/tool-result';
import { UpdatePlanInput } from '../../tools/builtin/update-plan';
import type { ToolWatch, WatchedCall } from '../turn-config';
import type { CallFacts } from './observe-tool';
import { contentHash, editKey, repeatedCommand, repeatedEdit, repeatedSteps, repeatedWrite } from './repeat-guard';
import type { LedgerState } from './work-ledger';

/** What the watch needs from the recorder that owns the ledger. */
export interface WatchHost {
  /** The ledger as it is now. */
  state(): LedgerState;
  /** The text of this turn's prompt. */
  prompt(): string | undefined;
  /** Facts about a call, for when its `tool_end` is recorded. */
  note(callId: string, facts: CallFacts): void;
}

export interface WorkWatchOptions {
  /** Tools whose file changes are looked for (default: none besides run_command): external tools. */
  watchesFiles?: (toolName: string) => boolean;
  /** Limits of each walk (`tools/file-versions.ts`). */
  walk?: FileVersionOptions;
}

type Args = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export class WorkWatch implements ToolWatch {
  constructor(
    private readonly host: WatchHost,
    private readonly workspace: Pick<WorkspacePort, 'root' | 'readFile'>,
    private readonly options: WorkWatchOptions = {},
  ) {}

  async before(call: ToolCallPart, signal: AbortSignal): Promise<WatchedCall> {
    try {
      const args: Args = call.arguments ?? {};
      switch (call.name) {
        case 'run_command':
          return await this.command(call, args, signal);
        case 'edit_file':
          return await this.edit(call, args);
        case 'write_file':
          return await this.write(call, args);
        case 'update_plan':
          return this.plan(call, args);
        default:
          return this.options.watchesFiles?.(call.name) ? await this.aroundTool(call, signal) : {};
      }
    } catch {
      return {};
    }
  }

  private async command(call: ToolCallPart, args: Args, signal: AbortSignal): Promise<WatchedCall> {
    const command = str(args.command);
    if (!command) return {};
    const before = await this.walk(signal);
    const repeated = repeatedCommand(
      this.host.state(),
      { command, cwd: str(args.cwd), rerun: str(args.rerun) },
      { digest: versionsDigest(before), prompt: this.host.prompt() },
    );
    if (repeated) return { instead: answer(call, repeated) };
    return { after: () => this.afterWalk(call, before, signal, true) };
  }

  private async aroundTool(call: ToolCallPart, signal: AbortSignal): Promise<WatchedCall> {
    const before = await this.walk(signal);
    return { after: () => this.afterWalk(call, before, signal, false) };
  }

  private async afterWalk(call: ToolCallPart, before: FileVersions, signal: AbortSignal, withState: boolean): Promise<void> {
    try {
      const after = await this.walk(signal);
      const facts: CallFacts = { changed: changedFiles(before, after) };
      if (withState) facts.state = versionsDigest(after);
      this.host.note(call.id, facts);
    } catch {
      // A walk that fails records nothing: the command's own entry is still written.
    }
  }

  private async edit(call: ToolCallPart, args: Args): Promise<WatchedCall> {
    const path = str(args.path);
    const oldText = str(args.old_text);
    const newText = str(args.new_text);
    if (!path || oldText === undefined || newText === undefined) return {};
    const current = await this.read(path);
    const repeated =
      current === undefined ? undefined : repeatedEdit(this.host.state(), { path, old_text: oldText, new_text: newText }, current);
    if (repeated) return { instead: answer(call, repeated) };
    return { after: () => this.afterWrite(call, path, editKey(path, oldText, newText)) };
  }

  private async write(call: ToolCallPart, args: Args): Promise<WatchedCall> {
    const path = str(args.path);
    const content = str(args.content);
    if (!path || content === undefined) return {};
    const repeated = repeatedWrite(this.host.state(), { path, content }, await this.read(path));
    if (repeated) return { instead: answer(call, repeated) };
    return { after: () => this.afterWrite(call, path, contentHash(content)) };
  }

  private async afterWrite(call: ToolCallPart, path: string, key: string): Promise<void> {
    const now = await this.read(path);
    if (now !== undefined) this.host.note(call.id, { contentHash: contentHash(now), editKey: key });
  }

  private plan(call: ToolCallPart, args: Args): WatchedCall {
    const parsed = UpdatePlanInput.safeParse(args);
    if (!parsed.success) return {};
    const repeated = repeatedSteps(this.host.state(), parsed.data.items, parsed.data.reopen);
    // Saved all the same: the ledger records the call (keeping those steps done) when it ends.
    return repeated ? { instead: answer(call, repeated) } : {};
  }

  private walk(signal: AbortSignal): Promise<FileVersions> {
    return fileVersions(this.workspace.root, { ...this.options.walk, signal });
  }

  private async read(path: string): Promise<string | undefined> {
    try {
      return await this.workspace.readFile(path);
    } catch {
      return undefined;
    }
  }
}

function answer(call: ToolCallPart, text: string): ToolResult {
  return textResult(call, text);
}
