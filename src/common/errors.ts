/**
 * Kinds of failure Headroom distinguishes. Each one has a message a person or the model can act on.
 */
export type ErrorKind =
  | 'context_overflow'
  | 'rate_limit'
  | 'overloaded'
  | 'auth'
  | 'network'
  | 'invalid_request'
  | 'aborted'
  | 'invalid_tool_input'
  | 'tool_failed'
  | 'invalid_message'
  | 'invalid_setting'
  | 'storage'
  | 'not_found'
  | 'unknown';

/** An error with a kind. Use it where a caller needs to branch on what went wrong. */
export class HeadroomError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HeadroomError';
  }
}

/** The message of anything thrown, never throwing itself. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return typeof err === 'string' ? err : JSON.stringify(err);
  } catch {
    return String(err);
  }
}

/** The stack of an Error (its text when it has none), or anything else thrown as text; for crash reports. */
export function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? String(err)) : String(err);
}
