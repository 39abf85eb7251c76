/// <reference lib="dom" />
/** WCAG text contrast measured in a webview frame from the computed, alpha-composited colours. */
import type { Frame } from 'playwright-core';

/**
 * WCAG contrast of the element's text against what is painted behind it (alpha composited). Plain
 * JavaScript text: the test transpiler would add helpers to a function the page does not have.
 */
const CONTRAST_JS = `(sel) => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) return [0, 0, 0, 0];
    const p = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p[3] ?? 1];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const el = document.querySelector(sel);
  const chain = [];
  for (let e = el; e; e = e.parentElement) chain.unshift(e);
  let bg = [255, 255, 255, 1];
  for (const e of chain) bg = over(parse(getComputedStyle(e).backgroundColor), bg);
  const fg = over(parse(getComputedStyle(el).color), bg);
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  return (a + 0.05) / (b + 0.05);
}`;

export async function textContrast(frame: Frame, selector: string): Promise<number> {
  return frame.evaluate<number>(`(${CONTRAST_JS})(${JSON.stringify(selector)})`);
}
