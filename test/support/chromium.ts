import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, driven by playwright-core (`.ci/run` installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/** The `skip` value of a browser suite: false when Chromium is installed, else the reason. */
export const chromiumSkip: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (.ci/run installs it)`;

/** Launches headless Chromium with the flags every browser suite uses. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
