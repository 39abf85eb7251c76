import type { ToolResultMessage } from './types';

/**
 * The text of a tool result as it is stored, measured and searched: its text parts joined as they are
 * (a tool may stream one text in several parts), each image named on its own line (images are never
 * stored as text). The one definition; admission, compaction and the ledger import it.
 */
export function resultText(result: ToolResultMessage): string {
  let out = '';
  for (const part of result.content) {
    if (part.type === 'text') out += part.text;
    else out += `${out && !out.endsWith('\n') ? '\n' : ''}[image ${part.mediaType}]`;
  }
  return out;
}
