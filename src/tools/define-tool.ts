/**
 * Tools are declarations: a name, a description, a zod input schema and `execute`. `defineTool`
 * emits the JSON Schema once and wraps `execute` in `invoke`, which validates input, enforces the
 * timeout and the abort signal, refuses mutating tools in untrusted workspaces, and turns every
 * failure into a result the model can act on. `invoke` never throws.
 */
import { z } from 'zod';
import { errorMessage, HeadroomError, type ErrorKind } from '../common/errors';
import type { ImagePart, JsonSchema, TextPart, ToolCallPart, ToolDefinition, UserDecision } from '../providers/types';
import type { ToolContext, ToolExecContext } from './ports';
import { errorResult, textResult, type ToolResult } from './tool-result';

/** What `execute` may return: plain text, or content parts with an error flag. */
export type ToolOutput =
  | string
  | {
      content: string | Array<TextPart | ImagePart>;
      isError?: boolean;
      errorKind?: ErrorKind;
      decision?: UserDecision;
      /** Deferred tools the result loads (`tool_search`), sent by reference where the request declares them. */
      toolReferences?: string[];
    };

export const DEFAULT_TOOL_TIMEOUT_MS = 120_000;

export interface ToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  execute(input: z.output<S>, ctx: ToolExecContext): Promise<ToolOutput>;
  /** Wall-clock limit for one call; a function of the input for tools whose input carries a timeout. */
  timeoutMs?: number | ((input: z.output<S>) => number);
  /** What kind of approval the tool asks for (the tool itself asks, through `ctx.approve`). */
  requiresApproval?: 'edit' | 'command' | 'tool' | false;
  /** Changes files or runs commands: refused when the workspace is not trusted. */
  mutates?: boolean;
  /**
   * The output is already a bounded page of something (a stored result, a tool list): admission never
   * stores it again; a page too large for the context comes back as advice to ask for less.
   */
  neverOffload?: boolean;
  /**
   * The result is what the model finds its way back with (a page of stored history, the plan, the
   * tool list): a provider's own clearing of old tool results never clears it (Anthropic `exclude_tools`).
   */
  keepInContext?: boolean;
  /**
   * The description sent in a small context window (`context/small-window.ts`), where every token of
   * the tool definitions is taken from the conversation. Default: the description's first sentence.
   */
  brief?: string;
  /** In a small context window the tool is deferred (found with tool_search) instead of sent with every request. */
  deferWhenSmall?: boolean;
}

/** A defined tool: its provider-facing definition, its metadata and the never-throwing `invoke`. */
export interface Tool {
  readonly name: string;
  readonly definition: ToolDefinition;
  readonly requiresApproval: 'edit' | 'command' | 'tool' | false;
  readonly mutates: boolean;
  /** See `ToolSpec.neverOffload`. */
  readonly neverOffload: boolean;
  /** See `ToolSpec.keepInContext`. */
  readonly keepInContext: boolean;
  /** The definition for a small context window: the brief description, the schema's shape only (`ToolSpec.brief`). */
  readonly briefDefinition: ToolDefinition;
  /** See `ToolSpec.deferWhenSmall`. */
  readonly deferWhenSmall: boolean;
  /** Runs one call. Never throws; failures come back as `isError` results with an `errorKind`. */
  invoke(call: ToolCallPart, ctx: ToolContext): Promise<ToolResult>;
}

/** JSON Schema of a zod input schema as a model sees it (input side, no `$schema`). */
export function toInputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The first sentence of a description (up to the first full stop followed by a space or the end). */
function firstSentence(text: string): string {
  const m = /^.*?[.!?](?=\s|$)/s.exec(text);
  return (m ? m[0] : text).trim();
}

/** The schema keywords a brief definition keeps: the shape. Limits and defaults are checked (and said) when the tool runs. */
const BRIEF_KEYWORDS = new Set(['type', 'properties', 'required', 'items', 'enum', 'anyOf', 'oneOf', 'const', 'additionalProperties']);

/** A JSON Schema with only its shape (names, types, required, enums): what a small window can afford. */
function briefSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(briefSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (!BRIEF_KEYWORDS.has(k)) continue;
    // `properties` maps field names (a field may be called "type") to schemas.
    out[k] = k === 'properties' && typeof v === 'object' && v !== null ? mapValues(v, briefSchema) : briefSchema(v);
  }
  return out;
}

function mapValues(obj: object, fn: (v: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));
}

export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): Tool {
  const inputSchema = toInputJsonSchema(spec.input);
  const knownKeys = Object.keys((inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const definition: ToolDefinition = { name: spec.name, description: spec.description, inputSchema };
  const mutates = spec.mutates ?? false;

  async function invoke(call: ToolCallPart, ctx: ToolContext): Promise<ToolResult> {
    try {
      if (call.rawArguments !== undefined) {
        return errorResult(call, 'invalid_tool_input', describeUnparsable(spec.name, call.rawArguments));
      }
      const parsed = spec.input.safeParse(call.arguments ?? {});
      if (!parsed.success) {
        return errorResult(call, 'invalid_tool_input', describeIssues(spec.name, parsed.error.issues, call.arguments ?? {}, knownKeys));
      }
      if (mutates && !ctx.trusted) return untrustedResult(call);
      const timeoutMs = typeof spec.timeoutMs === 'function' ? spec.timeoutMs(parsed.data) : spec.timeoutMs;
      return await runGuarded(call, ctx, timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, (execCtx) => spec.execute(parsed.data, execCtx));
    } catch (err) {
      // Only reachable if something above misbehaves (e.g. a getter on arguments throws).
      return errorResult(call, 'tool_failed', `${spec.name} failed: ${errorMessage(err)}`);
    }
  }

  return {
    name: spec.name,
    definition,
    requiresApproval: spec.requiresApproval ?? false,
    mutates,
    neverOffload: spec.neverOffload ?? false,
    keepInContext: spec.keepInContext ?? false,
    briefDefinition: {
      name: spec.name,
      description: spec.brief ?? firstSentence(spec.description),
      inputSchema: briefSchema(inputSchema) as JsonSchema,
    },
    deferWhenSmall: spec.deferWhenSmall ?? false,
    invoke,
  };
}

/** The result of a mutating tool called in an untrusted workspace (Restricted Mode). */
export function untrustedResult(call: { id: string; name: string }): ToolResult {
  return errorResult(
    call,
    'tool_failed',
    `${call.name} is not available: this workspace is not trusted, so Headroom does not edit files, run commands or call external tools in it. ` +
      'Tell the user, who can trust the workspace (Workspaces: Manage Workspace Trust) and ask again.',
  );
}

/**
 * Runs `fn` with a signal that fires when the caller aborts or the timeout passes, and settles as
 * soon as either happens (a tool that ignores its signal cannot hold the turn). Never throws.
 */
export async function runGuarded(
  call: ToolCallPart,
  ctx: ToolContext,
  timeoutMs: number,
  fn: (ctx: ToolExecContext) => Promise<ToolOutput>,
): Promise<ToolResult> {
  if (ctx.signal.aborted) return abortedResult(call);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<ToolResult>((resolve) => {
    onAbort = () => {
      controller.abort(ctx.signal.reason);
      resolve(abortedResult(call));
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
      timer = setTimeout(() => {
        controller.abort(new HeadroomError('tool_failed', 'timeout'));
        resolve(
          errorResult(
            call,
            'tool_failed',
            `${call.name} timed out after ${formatDuration(timeoutMs)} and was stopped. ` +
              'Try a smaller request, or a longer timeout if the tool accepts one.',
          ),
        );
      }, timeoutMs);
    }
  });
  const run = (async (): Promise<ToolResult> => {
    try {
      const out = await fn({ ...ctx, signal: controller.signal, toolCallId: call.id });
      if (typeof out === 'string') return textResult(call, out);
      const result = textResult(call, out.content, out.isError ?? false);
      if (out.isError && out.decision) result.decision = out.decision;
      if (!out.isError && out.toolReferences?.length) result.toolReferences = out.toolReferences;
      return out.isError ? { ...result, errorKind: out.errorKind ?? 'tool_failed' } : result;
    } catch (err) {
      if (controller.signal.aborted) return abortedResult(call);
      return errorResult(call, 'tool_failed', `${call.name} failed: ${errorMessage(err)}`);
    }
  })();
  try {
    return await Promise.race([run, stop]);
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) ctx.signal.removeEventListener('abort', onAbort);
  }
}

function abortedResult(call: ToolCallPart): ToolResult {
  return { ...errorResult(call, 'aborted', `${call.name} was stopped by the user before it finished.`), decision: 'stopped' };
}

function formatDuration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function describeUnparsable(name: string, raw: string): string {
  let reason: string;
  try {
    const value: unknown = JSON.parse(raw);
    reason = value !== null && typeof value === 'object' && !Array.isArray(value) ? 'it could not be read' : 'not a JSON object';
  } catch (err) {
    reason = errorMessage(err);
  }
  const shown = raw.length > 300 ? `${raw.slice(0, 300)}… (${raw.length} chars)` : raw;
  return (
    `Invalid input for ${name}: the arguments are not a valid JSON object (${reason}). ` +
    `Received: ${shown}\nCall ${name} again with a JSON object matching its input schema.`
  );
}

function describeIssues(name: string, issues: ReadonlyArray<z.core.$ZodIssue>, args: Record<string, unknown>, knownKeys: string[]): string {
  const lines = issues.slice(0, 10).map((issue) => {
    const field = issue.path.length ? issue.path.map(String).join('.') : '(arguments)';
    const message =
      issue.code === 'invalid_type' && issue.path.length && !(String(issue.path[0]) in args)
        ? `required field is missing (${issue.message})`
        : issue.message;
    return `- ${field}: ${message}`;
  });
  if (issues.length > 10) lines.push(`- … and ${issues.length - 10} more`);
  const unknown = knownKeys.length ? Object.keys(args).filter((k) => !knownKeys.includes(k)) : [];
  if (unknown.length) lines.push(`- unexpected field(s): ${unknown.join(', ')} (accepted fields: ${knownKeys.join(', ')})`);
  return `Invalid input for ${name}:\n${lines.join('\n')}\nCall ${name} again with corrected arguments.`;
}
