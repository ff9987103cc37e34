// The console in a real headless Chromium (Debian's package at /usr/bin/chromium, driven by
// playwright-core): a `twinworld console` child process on a store, a delivery queued and sent by
// a separate `twinworld trigger` process appearing without a reload, its attempts and headers
// opened by keyboard, a redeliver clicked and landing at the loopback receiver (verified with
// Stripe's own library), and not one request from the page outside 127.0.0.1. On SQLite and on
// PostgreSQL. Screenshots go to reports/console/.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/backends.js';
import { CHROMIUM, hasChromium, launchChromium } from '../support/chromium.js';
import { start, tw } from '../support/cli-process.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { postgresUrl } from '../storage/postgres-url.js';

const REPORTS = resolve('reports/console');
const stripe = new Stripe('sk_test_twinworld');
/**
 * How long the page may take to show what the server pushed (the live stream, a redraw): a bound
 * for a loaded machine, not a guess at the time it takes; every wait ends as soon as it holds.
 */
const LIVE = { timeout: 15_000 };
if (!hasChromium)
  console.warn(
    `console browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run does)`,
  );

let dir: string;
let browser: Browser;
let receiver: Receiver;
let elsewhere: Receiver;

beforeAll(async () => {
  if (!hasChromium) return;
  dir = tempDir('twinworld-console-browser-');
  mkdirSync(REPORTS, { recursive: true });
  receiver = await startReceiver(() => 200);
  elsewhere = await startReceiver(() => 202);
  browser = await launchChromium();
});
afterAll(async () => {
  if (!hasChromium) return;
  await browser.close();
  await receiver.close();
  await elsewhere.close();
  rmSync(dir, { recursive: true, force: true });
});

const stores: [string, () => string[]][] = [
  ['SQLite', () => ['--root', join(dir, 'world')]],
  [
    'PostgreSQL',
    () => {
      const url = new URL(postgresUrl());
      url.searchParams.set('world', `console_${process.pid}_${Date.now().toString(36)}`);
      return ['--store', url.toString()];
    },
  ],
];

describe.skipIf(!hasChromium).each(stores)('the console on %s', (name, storeArgs) => {
  it('shows a delivery another process queued, live; its attempts and headers; a redeliver that lands', async () => {
    const store = storeArgs();
    const path = `/hook-${name.toLowerCase()}`;
    const added = await tw([
      'endpoints',
      'add',
      'stripe',
      '--url',
      `${receiver.url}${path}`,
      '--json',
      ...store,
    ]);
    expect(added.stderr).toBe('');
    const { secret } = JSON.parse(added.stdout) as { secret: string };
    const before = receiver.requests.length;

    const console_ = start(['console', '--json', '--poll', '50', ...store]);
    try {
      const { url, origin } = JSON.parse((await console_.waitFor(/^\{.*\}$/m))[0]) as {
        url: string;
        origin: string;
      };
      expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(LIVE.timeout);
      const requested: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      await page.goto(url);
      await expect.poll(() => page.textContent('#status'), LIVE).toBe('live');
      expect(await page.locator('tr[data-delivery]').count()).toBe(0);

      // Another process queues and sends it; the page learns of it through the heads alone.
      const sent = await tw([
        'trigger',
        'stripe',
        'customer.created',
        '--wait',
        '--json',
        ...store,
      ]);
      expect(sent.stderr).toBe('');
      const deliveryId = (JSON.parse(sent.stdout) as { queued: { id: string }[] }).queued[0]!.id;
      const row = page.locator(`tr[data-delivery="${deliveryId}"]`);
      await expect.poll(() => row.count(), LIVE).toBe(1);
      await expect.poll(() => row.locator('td').nth(4).textContent(), LIVE).toBe('succeeded');

      // By keyboard: focus the row, Enter opens the attempts.
      await row.focus();
      await page.keyboard.press('Enter');
      const first = page.locator('.attempt[data-attempt="1"]');
      await expect.poll(() => first.count(), LIVE).toBe(1);
      // The attempt shows as soon as it is claimed; its status once the send is recorded.
      await expect.poll(() => first.locator('.attempt-status').textContent(), LIVE).toBe('200');
      await first.locator('summary').click();
      expect(await first.locator('table.headers').textContent()).toMatch(
        /Stripe-Signature\s*t=\d+,v1=[0-9a-f]{64}/,
      );

      await page.click('#redeliver');
      const second = page.locator('.attempt[data-attempt="2"]');
      await expect.poll(() => second.count(), LIVE).toBe(1);
      // The attempt shows as soon as it is claimed; its status once the send is recorded.
      await expect.poll(() => second.locator('.attempt-status').textContent(), LIVE).toBe('200');
      const landed = receiver.requests.slice(before);
      expect(landed.map((r) => r.url)).toEqual([path, path]);
      for (const r of landed)
        expect(
          stripe.webhooks.constructEvent(r.body, String(r.headers['stripe-signature']), secret).id,
        ).toMatch(/^evt_/);

      // Redeliver to another URL: that one attempt goes there, the endpoint keeps its own.
      await page.fill('#redeliver-to', `${elsewhere.url}/other`);
      await page.click('#redeliver');
      const third = page.locator('.attempt[data-attempt="3"]');
      await expect.poll(() => third.count(), LIVE).toBe(1);
      // The attempt shows as soon as it is claimed; its status once the send is recorded.
      await expect.poll(() => third.locator('.attempt-status').textContent(), LIVE).toBe('202');
      expect(elsewhere.requests.at(-1)?.url).toBe('/other');
      expect(receiver.requests.length).toBe(before + 2);

      // The state hash reads every live resource, so it is computed when asked, by a button. The
      // request is held until another process has written and the page has redrawn the row the
      // button was in: the answer must still show, in the row that now holds the twin's head.
      const twinRow = page
        .locator('#twins-body tr')
        .filter({ has: page.locator('td:first-child', { hasText: /^stripe$/ }) });
      const headShown = () => twinRow.locator('td').nth(1).textContent();
      const headBefore = await headShown();
      let asked!: () => void;
      const hashAsked = new Promise<void>((resolve) => (asked = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/hash?*', async (route) => {
        asked();
        await released;
        await route.continue();
      });
      await twinRow.getByRole('button', { name: 'compute the state hash of stripe' }).click();
      await hashAsked;
      expect((await tw(['trigger', 'stripe', 'customer.created', ...store])).stderr).toBe('');
      await expect.poll(headShown, LIVE).not.toBe(headBefore);
      release();
      await expect
        .poll(() => twinRow.locator('td').nth(3).getAttribute('title'), LIVE)
        .toMatch(/^sha256:[0-9a-f]{64}$/);

      await page.screenshot({
        path: join(REPORTS, `console-${name.toLowerCase()}.png`),
        fullPage: true,
      });
      expect(requested.length).toBeGreaterThan(2);
      for (const r of requested) expect(r.startsWith(`${origin}/`), r).toBe(true);
      await page.close();
    } finally {
      expect(await console_.interrupt()).toBe(0);
    }
  });
});
