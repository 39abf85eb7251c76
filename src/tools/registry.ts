/**
 * The set of tools a session can use: built-ins plus external tools, with the deferral policy
 * deciding which definitions go into a request and admission deciding how results come back.
 */
import type { ToolCallPart, ToolDefinition } from '../providers/types';
import { admitResult, type AdmissionOptions } from './admission';
import type { Tool } from './define-tool';
import { DeferralPolicy, type DeferralSelection } from './deferral';
import { externalTool } from './external-tool';
import type { ExternalToolDefinition, ExternalToolPort, ToolContext } from './ports';
import { errorResult, type ToolResult } from './tool-result';

export interface ToolRegistryOptions {
  builtins: Tool[];
  external?: ExternalToolPort;
  /** Shared with `tool_search`; a fresh one when omitted. */
  policy?: DeferralPolicy;
  /** When set, every result goes through `admitResult` before `invoke` returns it. */
  admission?: AdmissionOptions;
  externalTimeoutMs?: number;
  /** The user's allow list for external tools (`headroom.externalTools.allow`); read at each call. */
  externalAllow?: () => readonly string[];
}

export class ToolRegistry {
  readonly policy: DeferralPolicy;
  private readonly builtins: Map<string, Tool>;
  private externals = new Map<string, Tool>();

  constructor(private readonly options: ToolRegistryOptions) {
    this.policy = options.policy ?? new DeferralPolicy();
    this.builtins = new Map(options.builtins.map((t) => [t.name, t]));
    this.refreshExternal();
  }

  /**
   * Re-reads the external tools (call when vscode.lm.tools changes). An external tool whose name
   * clashes with a built-in is ignored. Never throws: a failing `list` leaves no external tools.
   */
  refreshExternal(): void {
    let defs: ExternalToolDefinition[];
    try {
      defs = this.options.external?.list() ?? [];
    } catch {
      defs = [];
    }
    const port = this.options.external;
    this.externals = new Map();
    if (port) {
      for (const def of defs) {
        if (!this.builtins.has(def.name) && !this.externals.has(def.name)) {
          this.externals.set(
            def.name,
            externalTool(def, port, { timeoutMs: this.options.externalTimeoutMs, allow: this.options.externalAllow }),
          );
        }
      }
    }
    const candidate = (t: Tool, builtin: boolean) => ({
      definition: t.definition,
      builtin,
      brief: t.briefDefinition,
      deferWhenSmall: t.deferWhenSmall,
    });
    this.policy.setTools([
      ...[...this.builtins.values()].map((t) => candidate(t, true)),
      ...[...this.externals.values()].map((t) => candidate(t, false)),
    ]);
  }

  /** Call when a turn starts: tools activated during the previous turn go back under the LRU rule. */
  beginTurn(): void {
    this.policy.releasePins();
  }

  setEffectiveWindow(tokens: number): void {
    this.policy.setEffectiveWindow(tokens);
  }

  /** Whether `name` is one of Headroom's own tools (not an extension's or an MCP server's). */
  isBuiltin(name: string): boolean {
    return this.builtins.has(name);
  }

  /** A small context window: brief definitions, fewer tools sent (see `DeferralPolicy.setSmallWindow`). */
  setSmallWindow(small: boolean): void {
    this.policy.setSmallWindow(small);
  }

  /** The tools whose results a provider's own clearing must leave (`ToolSpec.keepInContext`), by name. */
  keptInContext(): string[] {
    return [...this.builtins.values(), ...this.externals.values()].filter((t) => t.keepInContext).map((t) => t.name);
  }

  get(name: string): Tool | undefined {
    return this.builtins.get(name) ?? this.externals.get(name);
  }

  /** Definitions to send with the next request: active tools only (built-ins first). */
  definitionsForRequest(): ToolDefinition[] {
    return this.policy.select().active;
  }

  /** Deferred tools to declare with the next request: only when the model loads them by reference (`DeferralPolicy.setByReference`). */
  deferredForRequest(): ToolDefinition[] {
    return this.policy.byReference ? this.policy.select().deferred : [];
  }

  /** The current deferral state (deferred tools, saved tokens, system note). */
  selection(): DeferralSelection {
    return this.policy.select();
  }

  /**
   * Runs one call. A deferred tool called by name is activated and run; an unknown name becomes an
   * `invalid_tool_input` result listing what exists. Never throws.
   */
  async invoke(call: ToolCallPart, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.get(call.name);
    let result: ToolResult;
    if (!tool) {
      const names = this.definitionsForRequest()
        .map((d) => d.name)
        .join(', ');
      result = errorResult(
        call,
        'invalid_tool_input',
        `Unknown tool "${call.name}". Available tools: ${names}.` +
          (this.selection().deferred.length ? ' More tools are deferred: use tool_search to find them.' : ''),
      );
    } else {
      // A deferred tool called by name joins the next requests of the turn (an external one, or a built-in in a small window).
      if (this.externals.has(call.name) || this.policy.isDeferred(call.name)) this.policy.activate(call.name);
      else this.policy.recordUse(call.name);
      result = await tool.invoke(call, ctx);
    }
    if (!this.options.admission) return result;
    return admitResult(result, { neverOffload: (name) => this.get(name)?.neverOffload === true, ...this.options.admission });
  }
}
