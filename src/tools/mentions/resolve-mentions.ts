/**
 * Turns the @-mentions of a prompt into the context attached to it. Every path is hostile input: it
 * is confined to the workspace (no `..`, no absolute path elsewhere, no symbolic link leading out),
 * and refused when .gitignore ignores it or when it, or the file a link leads to, looks like a secret
 * (`../secret-files.ts`; the user's `headroom.secretFiles.allow` lifts that); binary files and files
 * over `MAX_MENTION_READ_BYTES` are named, never read whole. Content is hostile too: it is escaped so
 * it cannot close its block and go on as the user's own words. The text goes into the user message;
 * the caller sends each block through admission (`tools/admission.ts`), so a large one is stored and
 * stubbed like a large tool result. Never throws: a mention that cannot be attached says why.
 */
import { promises as fs } from 'node:fs';
import { errorMessage } from '../../common/errors';
import { mentionLabel, type Mention, type MentionChip, type MentionOption } from '../../protocol/mentions';
import { isInside, resolveInside, toRelative } from '../path-guard';
import { decodeUtf8Prefix, readRegularFile } from '../safe-file';
import { singleLine } from '../../common/single-line';
import { secretAllowList, secretReason, type SecretAllowList } from '../secret-files';
import { isIgnoredPath } from './mention-index';
import { modelNumber } from '../../common/model-numbers';

/** Files larger than this are not read for a mention (read_file's own cap). */
export const MAX_MENTION_READ_BYTES = 20 * 1024 * 1024;
/** A folder mention lists at most this many entries below it. */
export const MAX_FOLDER_ENTRIES = 500;
/** The problems block keeps at most this many diagnostics. */
export const MAX_PROBLEMS = 200;

/** What a mention became: the chip the transcript shows and the block the model reads (none when refused). */
export interface ResolvedMention {
  chip: MentionChip;
  /** The context block; for a refused mention, a one-line note saying it was not attached. */
  text: string;
  /** False when the mention was refused or could not be read. */
  attached: boolean;
}

/** What resolving needs from outside: the workspace and the editor's own sources. */
export interface MentionSources {
  /** Absolute workspace root; undefined without a folder (file and folder mentions are then refused). */
  root: string | undefined;
  /** The picker's entries (ignore rules and secret filter applied), for folder listings. */
  entries(): Promise<readonly MentionOption[]>;
  /** The active editor's selection, or undefined when there is none. */
  selection(): Promise<{ path: string; startLine: number; endLine: number; text: string } | undefined>;
  /** The workspace's diagnostics, one line each (`path:line:col severity message`). */
  problems(): Promise<string[]>;
  /** The user's exceptions to the secret-file policy; default none. */
  secretsAllowed?: SecretAllowList;
}

/** Our block elements: content must not open or close one. */
const BLOCK_TAG = /<(\/?)(file|folder|selection|problems)(?=[\s>/]|$)/gi;

/**
 * A block's content as the model reads it: every opening or closing tag of our blocks is escaped
 * (`</\file>`), so a file that contains `</file>` cannot end its block and continue as if it were the
 * user's message. Everything else stays as it is (code keeps its `<` and `&`).
 */
export function blockText(text: string): string {
  return text.replace(BLOCK_TAG, '<$1\\$2');
}

/** One line of a listing (a path from the walk): one line whatever its name holds, and no block tags. */
const listed = (line: string) => blockText(singleLine(line));

/** Escapes text for an attribute of the blocks the model reads (file names are hostile input). */
export function attr(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\r\n]/g, ' ');
}

export async function resolveMentions(mentions: readonly Mention[], sources: MentionSources): Promise<ResolvedMention[]> {
  const out: ResolvedMention[] = [];
  const seen = new Set<string>();
  for (const m of mentions) {
    const key = `${m.kind}:${mentionLabel(m)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(await resolveOne(m, sources).catch((err) => refused(m, errorMessage(err))));
  }
  return out;
}

async function resolveOne(m: Mention, sources: MentionSources): Promise<ResolvedMention> {
  switch (m.kind) {
    case 'file':
      return resolveFile(m.path, sources);
    case 'folder':
      return resolveFolder(m.path, sources);
    case 'range':
      return rangeBlock('range', m, sources.root);
    case 'selection': {
      const sel = await sources.selection();
      if (!sel || !sel.text) return refused(m, 'no text is selected in an editor');
      return rangeBlock('selection', sel, sources.root);
    }
    case 'problems': {
      const lines = await sources.problems();
      const shown = lines.slice(0, MAX_PROBLEMS);
      const more = lines.length > shown.length ? `\n(${lines.length - shown.length} more not shown)` : '';
      const body = shown.length ? shown.map(listed).join('\n') + more : 'No problems are reported in the workspace.';
      return {
        chip: { kind: 'problems', label: 'problems' },
        text: `<problems count="${lines.length}">\n${body}\n</problems>`,
        attached: true,
      };
    }
  }
}

/**
 * Confines `requested` to the workspace and refuses ignored and secret paths (by the name asked for
 * and by the real file a link leads to); returns the real path and the relative one.
 */
async function guarded(
  requested: string,
  root: string | undefined,
  isDir: boolean,
  allow: SecretAllowList = secretAllowList(),
): Promise<{ real: string; rel: string }> {
  if (!root) throw new Error('no workspace folder is open');
  const realRoot = await fs.realpath(root);
  const abs = await resolveInside(root, realRoot, requested);
  const rel = toRelative(root, abs);
  if (rel === '' && !isDir) throw new Error('it is the workspace folder itself');
  const real = await fs.realpath(abs).catch(() => undefined);
  if (!real) throw new Error('nothing is there');
  if (!isInside(realRoot, real)) throw new Error('a symbolic link points outside the workspace');
  const secret = rel ? secretReason(rel, toRelative(realRoot, real), allow) : undefined;
  if (secret) throw new Error(`${secret}, and a secret is not attached (list it in the setting headroom.secretFiles.allow to attach it)`);
  if (rel && (await isIgnoredPath(root, rel, isDir))) throw new Error('it is ignored by .gitignore');
  return { real, rel };
}

async function resolveFile(requested: string, sources: MentionSources): Promise<ResolvedMention> {
  const { real, rel } = await guarded(requested, sources.root, false, sources.secretsAllowed);
  const chip: MentionChip = { kind: 'file', label: rel, path: rel };
  const st = await fs.stat(real);
  if (st.isDirectory()) return resolveFolder(requested, sources);
  if (st.size > MAX_MENTION_READ_BYTES) {
    return refused({ kind: 'file', path: rel }, `it is ${modelNumber(st.size)} bytes, too large to attach; ask to search it`);
  }
  const read = await readRegularFile(real, MAX_MENTION_READ_BYTES, rel);
  if (read.bytes.subarray(0, 8000).includes(0)) {
    return refused({ kind: 'file', path: rel }, `it is a binary file (${modelNumber(read.size)} bytes)`);
  }
  const text = decodeUtf8Prefix(read.bytes, read.truncated);
  const body = blockText(text);
  return { chip, text: `<file path="${attr(rel)}">\n${body}${body.endsWith('\n') || !body ? '' : '\n'}</file>`, attached: true };
}

async function resolveFolder(requested: string, sources: MentionSources): Promise<ResolvedMention> {
  const { real, rel } = await guarded(requested, sources.root, true, sources.secretsAllowed);
  const st = await fs.stat(real);
  if (!st.isDirectory()) return resolveFile(requested, sources);
  const prefix = rel ? `${rel}/` : '';
  const below = (await sources.entries()).filter((e) => e.path.startsWith(prefix)).sort((a, b) => (a.path < b.path ? -1 : 1));
  const shown = below.slice(0, MAX_FOLDER_ENTRIES).map((e) => listed(e.kind === 'folder' ? `${e.path}/` : e.path));
  const more = below.length > shown.length ? `\n(${below.length - shown.length} more entries not listed)` : '';
  const label = rel || '.';
  const body = shown.length ? shown.join('\n') + more : '(no files that are not ignored)';
  return {
    chip: { kind: 'folder', label, path: label },
    text: `<folder path="${attr(label)}" entries="${below.length}">\n${body}\n</folder>`,
    attached: true,
  };
}

function rangeBlock(
  kind: 'range' | 'selection',
  sel: { path: string; startLine: number; endLine: number; text: string },
  root: string | undefined,
): ResolvedMention {
  const lines = sel.startLine === sel.endLine ? `${sel.startLine}` : `${sel.startLine}-${sel.endLine}`;
  const label = `${sel.path}:${lines}`;
  const chip: MentionChip = { kind, label, ...(root && !sel.path.startsWith('/') ? { path: sel.path } : {}) };
  const text = blockText(sel.text);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return { chip, text: `<selection path="${attr(sel.path)}" lines="${lines}">\n${body}</selection>`, attached: true };
}

function refused(m: Mention, why: string): ResolvedMention {
  const label = mentionLabel(m);
  return {
    chip: { kind: m.kind, label, problem: why.slice(0, 500) },
    text: `[@${attr(label)} was not attached: ${why}]`,
    attached: false,
  };
}
