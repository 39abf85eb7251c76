/**
 * The panel's state: what the host sent (snapshot, transcript, meter, history) plus UI-only state
 * (view, draft, expanded cards) that survives the webview being hidden via vscode.setState.
 */
import { Transcript } from '../src/protocol/chat-ops';
import { Mention, type HistoryView, type LedgerView, type MeterView, type SnapshotView } from '../src/protocol/messages';
import { getState, setState } from './vscode-api';

export type View = 'chat' | 'history';

/** UI state persisted with vscode.setState (small; the transcript comes back from the host). */
export interface UiState {
  view: View;
  draft: string;
  /** Tool cards the user expanded. */
  expanded: string[];
  /** Scrolled away from the bottom: keep the position instead of following new text. */
  scrollTop: number | null;
  /** "Work so far" is open. */
  workOpen: boolean;
  /** The @-mentions taken in the draft (the draft's text names them). */
  mentions: Mention[];
}

export interface PanelState {
  snapshot: SnapshotView | undefined;
  transcript: Transcript;
  meter: MeterView | null;
  running: boolean;
  /** A compaction runs: Send, Compact and Clear wait for it. */
  compacting: boolean;
  /** The work ledger ("Work so far"). */
  ledger: LedgerView | null;
  history: HistoryView | undefined;
  error: { message: string; detail?: string } | undefined;
  ui: UiState;
}

function restoredUi(): UiState {
  const s = getState<Partial<UiState>>() ?? {};
  return {
    view: s.view === 'history' ? 'history' : 'chat',
    draft: typeof s.draft === 'string' ? s.draft : '',
    expanded: Array.isArray(s.expanded) ? s.expanded.filter((x): x is string => typeof x === 'string').slice(-200) : [],
    scrollTop: typeof s.scrollTop === 'number' ? s.scrollTop : null,
    workOpen: s.workOpen === true,
    mentions: Mention.array()
      .max(50)
      .catch([])
      .parse(s.mentions ?? []),
  };
}

export const state: PanelState = {
  snapshot: undefined,
  transcript: new Transcript(),
  meter: null,
  running: false,
  compacting: false,
  ledger: null,
  history: undefined,
  error: undefined,
  ui: restoredUi(),
};

let saveTimer: ReturnType<typeof setTimeout> | undefined;

/** Persists the UI state soon (debounced: typing saves at most every 200 ms). */
export function saveUi(patch: Partial<UiState> = {}): void {
  Object.assign(state.ui, patch);
  if (saveTimer !== undefined) return;
  saveTimer = setTimeout(() => {
    saveTimer = undefined;
    setState(state.ui);
  }, 200);
}
