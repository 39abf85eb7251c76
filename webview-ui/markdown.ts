/**
 * Assistant text as sanitized HTML: `marked` renders, DOMPurify sanitizes. Inline styles, images and
 * anything scriptable are removed (the CSP would block them anyway, loudly). Fenced code gets a header
 * and lazy highlighting (code-blocks.ts), tables scroll sideways instead of breaking words, task lists
 * keep their (read-only) checkboxes. Never throws.
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { enhanceCodeBlocks, languageOf } from './code-blocks';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

marked.use({
  gfm: true,
  breaks: false,
  renderer: {
    // The language travels as a data attribute: the sanitizer strips classes.
    code({ text, lang }) {
      const language = languageOf(lang);
      return `<pre><code${language ? ` data-lang="${escapeHtml(language)}"` : ''}>${escapeHtml(text.replace(/\n$/, ''))}\n</code></pre>\n`;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('rel', 'noopener noreferrer');
    if (!/^(https?:|mailto:)/i.test(node.getAttribute('href') ?? '')) node.removeAttribute('href');
  }
});
// Inputs survive only as the read-only checkboxes of a task list.
DOMPurify.addHook('uponSanitizeElement', (node, data) => {
  if (data.tagName !== 'input') return;
  const el = node as Element;
  if (el.getAttribute('type') !== 'checkbox') el.remove();
});
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'INPUT') {
    node.setAttribute('disabled', '');
    node.setAttribute('aria-label', node.hasAttribute('checked') ? 'done' : 'not done');
  }
});

// Set once: passing a config to every sanitize() call re-parses it (a third of the cost at 500 messages).
DOMPurify.setConfig({
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'img', 'video', 'audio', 'iframe', 'form', 'button', 'svg', 'math', 'select', 'textarea'],
  FORBID_ATTR: ['style', 'class', 'id', 'name', 'value'],
  RETURN_DOM_FRAGMENT: true,
});

/** Sanitized nodes for `text`, ready to append (no second HTML parse). */
export function renderMarkdown(text: string): DocumentFragment {
  try {
    const html = marked.parse(text, { async: false });
    const frag = DOMPurify.sanitize(html) as unknown as DocumentFragment;
    for (const table of Array.from(frag.querySelectorAll('table'))) {
      const wrap = document.createElement('div');
      wrap.className = 'hr-table-wrap';
      wrap.tabIndex = 0;
      table.replaceWith(wrap);
      wrap.append(table);
    }
    enhanceCodeBlocks(frag);
    return frag;
  } catch {
    const frag = document.createDocumentFragment();
    frag.append(document.createTextNode(text));
    return frag;
  }
}
