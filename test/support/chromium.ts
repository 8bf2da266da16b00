import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/**
 * Whether the browser suites save their screenshots (under test-artifacts/, for a person to look at):
 * yes, unless TEST_SCREENSHOTS=0, which `.ci/run` sets (nobody looks at them there; in the admin suite
 * they were about a fifth of Chromium's CPU, 25 against 20 s). No assertion reads these files.
 */
export const SAVE_SCREENSHOTS = process.env.TEST_SCREENSHOTS !== '0';

/** Saves a full-page screenshot of `page` to `file`, when screenshots are saved (`SAVE_SCREENSHOTS`). */
export async function saveScreenshot(page: Page, file: string): Promise<void> {
  if (SAVE_SCREENSHOTS) await page.screenshot({ path: file, fullPage: true });
}
