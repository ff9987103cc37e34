// Debian's Chromium for the console's browser tests, driven by playwright-core (which downloads no
// browser here): where it is, whether this machine has it, and a headless launch of it.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  // As root (CI) Chromium refuses to start with its sandbox.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}
