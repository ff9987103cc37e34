// The console page in headless Chromium when `twinworld console` stops and is started again on
// the same port: the new process has a new token, so the page's stream is refused and the browser
// gives up on it; the page must say so (and how to get back), not "reconnecting…" for ever.
// Skipped without /usr/bin/chromium, as console-browser.test.ts is.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { start, tw } from '../support/cli-process.js';

const LIVE = { timeout: 20_000 };

let dir: string;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  dir = tempDir('twinworld-console-restart-');
  browser = await launchChromium();
});
afterAll(async () => {
  if (!hasChromium) return;
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasChromium)('the console page across a console restart', () => {
  it('says it is disconnected once the new console refuses its old token', async () => {
    const root = join(dir, 'world');
    expect((await tw(['trigger', 'stripe', 'customer.created', '--root', root])).status).toBe(0);
    const first = start(['console', '--json', '--poll', '50', '--root', root]);
    const { url, origin } = JSON.parse((await first.waitFor(/^\{.*\}$/m))[0]) as {
      url: string;
      origin: string;
    };
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await expect.poll(() => page.textContent('#status'), LIVE).toBe('live');
      expect(await first.interrupt()).toBe(0);
      await expect.poll(() => page.textContent('#status'), LIVE).toBe('reconnecting…');
      const port = new URL(origin).port;
      const second = start(['console', '--json', '--port', port, '--root', root]);
      try {
        await second.waitFor(/^\{.*\}$/m);
        await expect
          .poll(() => page.textContent('#status'), LIVE)
          .toMatch(/^disconnected: .*open the URL it printed$/);
      } finally {
        expect(await second.interrupt()).toBe(0);
      }
    } finally {
      await page.close();
    }
  });
});
