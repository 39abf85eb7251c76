/**
 * Which model a session talks to. A session remembers its own (stored with it, so resuming brings
 * it back); the settings hold the default new sessions start with. Changing the settings while a
 * session is open switches that session too: the settings are what a person just changed.
 * Pure; the store is reached through `save`.
 */
import type { ModelChoice } from '../context/model-choice';
import { serializeModelChoice } from '../context/model-choice';

export interface SessionModelDeps {
  /** The settings' default, read fresh on every call (settings can change at any time). */
  defaults(): ModelChoice;
  /** Stores the session's choice; undefined when sessions are not stored. A rejection is reported to `onError`. */
  save?(choice: ModelChoice): Promise<void>;
  onError?(message: string): void;
}

export class SessionModel {
  private choice: ModelChoice;
  /** The settings as this session last saw them: a difference means someone changed them since. */
  private seen: string;

  /** `stored`: the choice stored with the session (undefined for a new or older session: the default, stored now). */
  constructor(
    private readonly deps: SessionModelDeps,
    stored: ModelChoice | undefined,
  ) {
    const defaults = deps.defaults();
    this.seen = serializeModelChoice(defaults);
    this.choice = stored ?? defaults;
    if (!stored) void this.persist();
  }

  /** The session's model now. Never throws. */
  current(): ModelChoice {
    const defaults = this.deps.defaults();
    const key = serializeModelChoice(defaults);
    if (key !== this.seen) {
      this.seen = key;
      this.choice = defaults;
      void this.persist();
    }
    return this.choice;
  }

  /** Switches the session's model and stores it. Resolves once stored (or the store failed, reported). */
  set(choice: ModelChoice): Promise<void> {
    this.current(); // take in any settings change first, so it does not override this choice later
    this.choice = { ...choice };
    return this.persist();
  }

  private persist(): Promise<void> {
    return (this.deps.save?.(this.choice) ?? Promise.resolve()).catch((e: unknown) =>
      this.deps.onError?.(`The session's model was not saved: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
}
