/**
 * What the panel's banner says when a user intent fails: what the user tried, in their words, then
 * why ("Could not undo the compaction: there is no compaction to undo."). Pure; never throws.
 */
import type { RequestMethod, WebviewToHost } from '../protocol/messages';

/** What a person asked for: a webview message, or the method of a request it sent. */
export type Intent = Exclude<WebviewToHost['type'], 'request'> | RequestMethod;

/** The action each intent stands for, as the end of "Could not …". */
const INTENT: Record<Intent, string> = {
  'webview/ready': 'start the panel',
  'webview/error': 'record a panel error',
  'prompt/submit': 'send the message',
  'prompt/resend': 'send the edited message',
  'prompt/retry': 'retry the failed turn',
  'mention/search': 'list the files to mention',
  'mention/open': 'open the mentioned file',
  'prompt/stop': 'stop the answer',
  'context/compact': 'compact the conversation',
  'context/clear': 'clear the conversation',
  'clear/undo': 'undo the clear',
  'session/new': 'start a new session',
  'session/list': 'list the sessions',
  'session/open': 'open the session',
  'session/rename': 'rename the session',
  'session/delete': 'delete the session',
  'snapshot/save': 'save the snapshot',
  'snapshot/restore': 'restore the snapshot',
  'compaction/undo': 'undo the compaction',
  'compaction/cancel': 'cancel the compaction',
  'receipt/pin': 'pin the missing item',
  'approval/respond': 'send your answer to the approval',
  'approval/diff': 'show the diff',
  'result/open': 'open the stored result',
  'transcript/older': 'load earlier messages',
  'checkpoint/diff': 'show the changes of the turn',
  'checkpoint/restore': 'restore the checkpoint',
  'config/update': 'save the setting',
  'config/test': 'test the connection',
  'command/run': 'run the command',
  'code/copy': 'copy the code',
  'code/insert': 'insert the code',
};

/** "Could not undo the compaction: There is no compaction to undo." */
export function intentFailure(type: Intent | 'request', reason: string): string {
  const what = type === 'request' ? 'answer the panel' : INTENT[type];
  const why = reason.trim().replace(/[.\s]*$/, '');
  return why ? `Could not ${what}: ${why}.` : `Could not ${what}.`;
}
