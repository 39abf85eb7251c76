/**
 * @-mentions as the webview and the host exchange them: what the composer's picker offers, what a
 * submitted prompt names, and the chip a sent prompt shows. Browser-safe (zod only). A mention names a
 * workspace path or a special source; the host resolves it to content (never the webview), and checks
 * every path again: nothing here is trusted.
 */
import { z } from 'zod';

/** A workspace-relative path as the picker offers it (forward slashes, no NUL, bounded). */
const MentionPath = z
  .string()
  .min(1)
  .max(1_000)
  .refine((p) => !p.includes('\0'), 'contains a NUL character');

/** A line range of an editor selection, 1-based and inclusive. */
const Line = z.number().int().min(1).max(10_000_000);

export const Mention = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: MentionPath }),
  z.object({ kind: z.literal('folder'), path: MentionPath }),
  /** The active editor's selection at the time the prompt is sent. */
  z.object({ kind: z.literal('selection') }),
  /**
   * A selection captured by "Add Selection to Headroom": where it came from and its text (the user
   * chose it in their own editor, like pasted text).
   */
  z.object({ kind: z.literal('range'), path: MentionPath, startLine: Line, endLine: Line, text: z.string().max(1_000_000) }),
  /** The workspace's diagnostics (errors and warnings) at the time the prompt is sent. */
  z.object({ kind: z.literal('problems') }),
]);
export type Mention = z.infer<typeof Mention>;
export type MentionKind = Mention['kind'];

/** One row of the picker: a workspace file or folder (the special entries are the composer's own). */
export const MentionOption = z.object({ kind: z.enum(['file', 'folder']), path: MentionPath });
export type MentionOption = z.infer<typeof MentionOption>;

/** How a sent prompt shows a mention: a chip with its label (a path, "selection", "problems"). */
export const MentionChip = z.object({
  kind: z.enum(['file', 'folder', 'selection', 'range', 'problems']),
  label: z.string().max(1_100),
  /** The workspace path the chip opens (files, folders and ranges inside the workspace). */
  path: MentionPath.optional(),
  /** Set when the mention could not be attached (outside the workspace, ignored, unreadable…). */
  problem: z.string().max(500).optional(),
  /** The content was too large for the context: it is stored and the model reads it on demand. */
  stored: z.boolean().optional(),
});
export type MentionChip = z.infer<typeof MentionChip>;

/** The word a mention is written as in the prompt text (after the `@`). */
export function mentionLabel(m: Mention): string {
  switch (m.kind) {
    case 'file':
    case 'folder':
      return m.path;
    case 'range':
      return m.startLine === m.endLine ? `${m.path}:${m.startLine}` : `${m.path}:${m.startLine}-${m.endLine}`;
    case 'selection':
      return 'selection';
    case 'problems':
      return 'problems';
  }
}
