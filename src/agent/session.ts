/**
 * A chat session as the panel drives it: the context view, the steering queue and one
 * AbortController per turn, around `runTurn`. Thin on purpose: persistence goes through a port,
 * the turn's wiring (provider, tools, gate) comes from a factory, and the UI listens to `onDidEvent`.
 */
import { Disposable } from '../common/disposable';
import { Emitter, type Event } from '../common/emitter';
import { errorMessage, HeadroomError } from '../common/errors';
import { newId } from '../common/ids';
import type { Message, SystemSection, UserMessage } from '../providers/types';
import type { AgentEvent } from './events';
import { runTurn } from './run-turn';
import type { PersistHook, TurnConfig, TurnResult } from './turn-config';

/** Where the session's new messages go (the store). See `PersistHook` for the contract. */
export interface SessionPersistence {
  append: PersistHook;
}

export interface AgentSessionOptions {
  /**
   * The wiring of the next turn, read when it starts (so model or settings changes apply to the next turn).
   * `resumed`: the turn is a retry of the failed one, which goes on from the context as it is.
   */
  turnConfig(resumed: boolean): Omit<TurnConfig, 'persist' | 'steering'>;
  /** The system sections of the next turn (may be read from disk asynchronously). */
  system(): SystemSection[] | Promise<SystemSection[]>;
  persistence?: SessionPersistence;
  /** The view to resume from (e.g. the store's context view). */
  messages?: Message[];
}

export class AgentSession extends Disposable {
  private view: Message[];
  /** The running turn's context: its `messages` is the live view (compaction may replace it). */
  private live: { messages: Message[] } | undefined;
  private readonly queue: UserMessage[] = [];
  private controller: AbortController | undefined;
  private running: Promise<TurnResult> | undefined;
  /** The last turn, when it failed: its prompt, and whether that prompt joined the context. */
  private failed: { prompt: UserMessage; delivered: boolean } | undefined;

  private readonly _onDidEvent = this._register(new Emitter<AgentEvent>());
  /** Every event of every turn, in order. */
  readonly onDidEvent: Event<AgentEvent> = this._onDidEvent.event;

  constructor(private readonly options: AgentSessionOptions) {
    super();
    this.view = [...(options.messages ?? [])];
  }

  /** The current context view (read-only snapshot). */
  get messages(): readonly Message[] {
    return this.live?.messages ?? this.view;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Messages typed during the running turn that were not delivered yet. */
  get queued(): readonly UserMessage[] {
    return this.queue;
  }

  /**
   * Starts a turn with `input`; while a turn runs, queues it as steering instead (delivered at the next
   * iteration boundary, or as the next turn if the running one ends first) and resolves with the
   * running turn's result. Never rejects.
   */
  prompt(input: string | UserMessage): Promise<TurnResult> {
    const message = typeof input === 'string' ? userMessage(input) : input;
    if (this.running) {
      this.queue.push(message);
      return this.running;
    }
    return this.start(message, false);
  }

  /** Whether the last turn failed, so `retry` has something to run again. */
  get canRetry(): boolean {
    return this.failed !== undefined && !this.running;
  }

  /**
   * Runs the failed last turn again (Retry). While its prompt is still in the context, the turn goes on
   * from the context as it is: the prompt is not delivered a second time, so the model and the chat see
   * it once. When it never joined the context (the turn could not start) or left it (a clear), it is
   * sent as the prompt of a new turn. Rejects when no turn failed since the last prompt, or one runs.
   */
  retry(): Promise<TurnResult> {
    const failed = this.failed;
    if (this.running) return Promise.reject(new HeadroomError('invalid_request', 'A turn is running: stop it before retrying.'));
    if (!failed) return Promise.reject(new HeadroomError('invalid_request', 'There is no failed turn to retry.'));
    return this.start(failed.prompt, failed.delivered && this.view.includes(failed.prompt));
  }

  private start(message: UserMessage, resumed: boolean): Promise<TurnResult> {
    this.failed = undefined;
    const controller = new AbortController();
    this.controller = controller;
    const turn = this.run(message, resumed, controller.signal).finally(() => {
      if (this.controller === controller) this.controller = undefined;
      this.running = undefined;
      // A message queued after the turn's last steering check starts the next turn.
      const next = this.queue.shift();
      if (next && !this.isDisposed) void this.prompt(next);
    });
    this.running = turn;
    return turn;
  }

  /** Queues a message for the running turn, or starts a turn when none runs. */
  steer(input: string | UserMessage): Promise<TurnResult> {
    return this.prompt(input);
  }

  /** Stops the running turn: aborts the model stream and any running tool. Queued messages are dropped. */
  stop(): void {
    this.queue.length = 0;
    this.controller?.abort();
  }

  /** Replaces the view (clear, restore, manual compaction). Refused while a turn runs. */
  replaceMessages(messages: Message[]): boolean {
    if (this.running) return false;
    this.view = [...messages];
    return true;
  }

  override dispose(): void {
    this.stop();
    super.dispose();
  }

  private async run(prompt: UserMessage, resumed: boolean, signal: AbortSignal): Promise<TurnResult> {
    const result = await this.runWired(prompt, resumed, signal);
    if (result.reason === 'error') this.failed = { prompt, delivered: resumed || result.newMessages.includes(prompt) };
    return result;
  }

  private async runWired(prompt: UserMessage, resumed: boolean, signal: AbortSignal): Promise<TurnResult> {
    let config: Omit<TurnConfig, 'persist' | 'steering'>;
    let system: SystemSection[];
    try {
      config = this.options.turnConfig(resumed);
      system = await this.options.system();
    } catch (err) {
      // The turn cannot be wired (no folder, bad settings…): report it like any failed turn.
      const turnId = newId('turn');
      const error = { kind: err instanceof HeadroomError ? err.kind : ('unknown' as const), message: errorMessage(err) };
      this._onDidEvent.fire({ type: 'error', ...error });
      this._onDidEvent.fire({ type: 'turn_end', turnId, reason: 'error', messages: [] });
      return { turnId, reason: 'error', newMessages: [], messages: this.view, error };
    }
    const ctx = { messages: this.view, system, prompt, resumed };
    this.live = ctx;
    const result = await runTurn(
      ctx,
      {
        ...config,
        persist: this.options.persistence?.append,
        steering: () => this.queue.splice(0),
      },
      signal,
      (e) => this._onDidEvent.fire(e),
    );
    this.view = ctx.messages;
    this.live = undefined;
    return result;
  }
}

export function userMessage(text: string, timestamp = Date.now()): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }], timestamp };
}
