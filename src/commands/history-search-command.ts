/**
 * Search History…: one search as the user types over the whole transcript and stored results of
 * every session of the workspace (also what compaction or a clear took out of a context), the current
 * session first, then the others newest first. A picked hit opens in a read-only editor at the hit,
 * whichever session it is in, without switching sessions; a hit of another session has an "Open
 * session" button that switches to it. Pure (no vscode): the UI is the `PaletteUi` port.
 */
import { errorMessage } from '../common/errors';
import { withoutIcons } from '../common/single-line';
import { formatCount, formatRelativeDate } from '../protocol/format';
import type { HistoryHit } from '../tools/history-search';
import type { HostActions } from '../app/host-actions';
import type { SessionHits } from '../app/workspace-search';
import type { LivePickItem, PaletteUi, PickButton } from './palette-ui';

/** How long typing must pause before a search starts (a search per keystroke is wasted work). */
export const SEARCH_DEBOUNCE_MS = 150;
/** Characters of a session's title shown beside each of its hits. */
const TITLE_CHARS = 60;

/** A hit as the pick list shows it, with what opening it needs. */
export interface HitItem extends LivePickItem {
  readonly ref: string;
  /** Undefined for the current session. */
  readonly sessionId: string | undefined;
  /** What was searched for: the opened editor selects its first occurrence. */
  readonly query: string;
}

/** The label is a codicon only (see `livePick`): who wrote the message. */
const ROLE_ICON: Record<HistoryHit['role'], string> = { user: '$(account)', assistant: '$(hubot)', tool: '$(tools)' };

/**
 * The pick list's items for one session's hits. Everything that comes from the store (titles, tool
 * names, the text around a hit) is shown without icons (`withoutIcons`): stored text cannot draw a
 * codicon or forge a line of the list.
 */
export function hitItems(part: SessionHits, query: string, ui: Pick<PaletteUi, 't'>, openButton: PickButton, now = Date.now()): HitItem[] {
  const who = { user: ui.t('You'), assistant: ui.t('Headroom'), tool: ui.t('Tool') };
  const title = withoutIcons(part.title.trim() || ui.t('Untitled session'));
  const where = part.current
    ? ui.t('this session')
    : `${title.length > TITLE_CHARS ? `${title.slice(0, TITLE_CHARS - 1)}…` : title} · ${formatRelativeDate(part.updatedAt, now)}`;
  const sessionId = part.current ? undefined : part.sessionId;
  return part.hits.map((h) => ({
    label: ROLE_ICON[h.role],
    description: `${who[h.role]}${h.toolName ? ` · ${withoutIcons(h.toolName)}` : ''} · ${ui.t('turn {0}', h.turn)} · ${where}`,
    detail: withoutIcons(h.excerpt),
    ref: h.ref,
    sessionId,
    query,
    ...(sessionId ? { buttons: [openButton] } : {}),
  }));
}

/** Search History… (see the file's comment). `debounceMs` is for tests. */
export async function searchHistory(actions: HostActions, ui: PaletteUi, debounceMs = SEARCH_DEBOUNCE_MS): Promise<void> {
  const title = ui.t('Headroom: Search History');
  const openButton: PickButton = { icon: 'arrow-right', tooltip: ui.t('Open session') };
  let running: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    running?.abort();
    clearTimeout(timer);
  };
  const pick = ui.livePick<HitItem>({
    title,
    placeHolder: ui.t('Words or a phrase to find in every session, also what is no longer in the context'),
    onValue: (value) => {
      // The next keystroke supersedes the search under way: it stops before its next session.
      stop();
      const query = value.trim();
      if (!query) {
        pick.show([], { busy: false });
        return;
      }
      const controller = (running = new AbortController());
      timer = setTimeout(() => void run(query, controller.signal), debounceMs);
    },
  });

  async function run(query: string, signal: AbortSignal): Promise<void> {
    const items: HitItem[] = [];
    let total = 0;
    let sessions = 0;
    const summary = () =>
      total === 0
        ? ui.t('nothing matches "{0}"', withoutIcons(query))
        : total > items.length
          ? ui.t('{0} in {1}, {2} shown', formatCount(total, 'match', 'matches'), formatCount(sessions, 'session'), items.length)
          : ui.t('{0} in {1}', formatCount(total, 'match', 'matches'), formatCount(sessions, 'session'));
    pick.show(items, { busy: true });
    try {
      for await (const part of actions.results.searchHistory(query, signal)) {
        if (signal.aborted) return;
        items.push(...hitItems(part, query, ui, openButton));
        total += part.total;
        sessions++;
        pick.show(items, { busy: true, summary: summary() });
      }
    } catch (err) {
      if (!signal.aborted) pick.show(items, { busy: false, summary: ui.t('the search failed: {0}', withoutIcons(errorMessage(err))) });
      return;
    }
    if (!signal.aborted) pick.show(items, { busy: false, summary: summary() });
  }

  const answer = await pick.answer;
  stop();
  if (!answer) return;
  const { item, button } = answer;
  if (button && item.sessionId) await actions.sessions.open(item.sessionId);
  else await actions.results.open(item.ref, item.query, item.sessionId);
}
