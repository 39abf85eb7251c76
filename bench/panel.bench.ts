/// <reference lib="dom" />
// figures: panel_render_500_ms
/**
 * Panel bench: `panel_render_500_ms` — the side panel renders a 500-message session
 * (snapshot + history list) in Chromium. The built bundle (media/webview.js, run `npm run build`
 * first) is loaded into a plain page with a stub webview API; each sample is a fresh page, and the
 * figure is the time from the message arriving to a laid-out DOM. Median of 7.
 * HEADROOM_PANEL_SCREENSHOT=path saves a screenshot of the rendered session.
 */
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../scripts/lib/code-server.mjs';
import { loadPanel, sessionFixture } from '../test/e2e/webview-harness';
import { median, r3, report } from './util';

const SAMPLES = 7;

async function main(): Promise<void> {
  const { snapshot, history } = sessionFixture(500);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    const sync: number[] = [];
    const painted: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      await loadPanel(page);
      const t = await page.evaluate(
        async ([snap, hist]) => {
          const t0 = performance.now();
          window.dispatchEvent(new MessageEvent('message', { data: hist }));
          window.dispatchEvent(new MessageEvent('message', { data: snap }));
          // Force style and layout of the whole list, as the first paint would.
          const items = document.querySelectorAll('.hr-item');
          items[items.length - 1]?.getBoundingClientRect();
          const t1 = performance.now();
          await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
          return { sync: t1 - t0, painted: performance.now() - t0, items: items.length };
        },
        [snapshot, history] as const,
      );
      if (t.items < 400) throw new Error(`only ${t.items} items rendered`);
      sync.push(t.sync);
      painted.push(t.painted);
    }
    if (process.env.HEADROOM_PANEL_SCREENSHOT) await page.screenshot({ path: process.env.HEADROOM_PANEL_SCREENSHOT });
    report({
      bench: 'panel_render_500_ms',
      value: r3(median(sync)),
      unit: 'ms',
      target: 150,
      better: 'lower',
      untilNextFrameMs: r3(median(painted)),
      samples: sync.map(r3),
      items: snapshot.type === 'session/snapshot' ? snapshot.snapshot.items?.length : 0,
    });
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
