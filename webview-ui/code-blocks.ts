/**
 * Fenced code blocks in answers: a header with the language and Copy / Insert buttons, and syntax
 * highlighting in the theme's colours by highlight.js (core plus the languages agents print most).
 * Highlighting is lazy: a block is highlighted when it first scrolls into view, so a 500-message session
 * renders as fast as without it. highlight.js escapes what it highlights; its output is still sanitized
 * (spans with `hljs-*` classes only) before it enters the DOM.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { h } from './dom';
import { send } from './vscode-api';

// Its own instance: the markdown sanitizer's global config strips classes, and DOMPurify ignores per-call
// config once setConfig was called.
const purifier = DOMPurify(window);
purifier.setConfig({ ALLOWED_TAGS: ['span'], ALLOWED_ATTR: ['class'], RETURN_DOM_FRAGMENT: true });

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, lang] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, lang);

/** Blocks longer than this are shown plain: highlighting them would stall the panel. */
const MAX_HIGHLIGHT_CHARS = 100_000;

/** The language label shown for a fence's info string ("ts" → "typescript"), or '' when none is given. */
export function languageOf(info: string | undefined): string {
  const word = (info ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return /^[a-z0-9_+#.-]{1,30}$/.test(word) ? word : '';
}

/**
 * Replaces each `<pre><code data-lang>` in `root` by a block with a header (language, Copy, Insert)
 * and queues it for highlighting when it becomes visible.
 */
export function enhanceCodeBlocks(root: ParentNode): void {
  for (const code of Array.from(root.querySelectorAll<HTMLElement>('pre > code'))) {
    const pre = code.parentElement!;
    const lang = languageOf(code.dataset.lang);
    const text = code.textContent ?? '';
    const copy = button('Copy', `Copy the ${lang || 'code'} block`, () => {
      send({ type: 'code/copy', text });
      copy.textContent = 'Copied';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    const insert = button('Insert', `Insert the ${lang || 'code'} block at the cursor in the editor`, () =>
      send({ type: 'code/insert', text, language: lang || undefined }),
    );
    const header = h(
      'div',
      { class: 'hr-code-head' },
      h('span', { class: 'hr-code-lang' }, lang || 'text'),
      h('span', { class: 'hr-code-actions' }, copy, insert),
    );
    const block = h('div', { class: 'hr-code', 'data-testid': 'code-block' });
    pre.replaceWith(block);
    block.append(header, pre);
    if (lang && hljs.getLanguage(lang) && text.length <= MAX_HIGHLIGHT_CHARS) {
      code.dataset.highlight = lang;
      observer().observe(code);
    }
  }
}

function button(text: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = h('button', { class: 'hr-code-button', title: label, 'aria-label': `${text}: ${label}` }, text);
  b.addEventListener('click', onClick);
  return b;
}

let visible: IntersectionObserver | undefined;
function observer(): IntersectionObserver {
  visible ??= new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting) continue;
      visible!.unobserve(e.target);
      highlight(e.target as HTMLElement);
    }
  });
  return visible;
}

/** Highlights one code element in place. Never throws: a failure leaves the plain text. */
export function highlight(code: HTMLElement): void {
  const lang = code.dataset.highlight;
  if (!lang || code.dataset.highlighted) return;
  try {
    const html = hljs.highlight(code.textContent ?? '', { language: lang, ignoreIllegals: true }).value;
    // A DocumentFragment at run time (RETURN_DOM_FRAGMENT in setConfig above), though typed as a string.
    code.replaceChildren(purifier.sanitize(html));
    code.dataset.highlighted = 'true';
  } catch {
    /* keep the plain text */
  }
}
