import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@inkwell/testing';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** Where the browser tests leave their screenshots: test-artifacts/ at the repository root. */
export const ARTIFACTS = join(repoRoot(), 'test-artifacts');

/** Headless Chromium for the browser tests, installed first by tools/ensure-chromium.sh where missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) execFileSync('bash', [join(repoRoot(), 'tools/ensure-chromium.sh')], { stdio: 'inherit' });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Saves a screenshot of `page` as ARTIFACTS/`file`; returns its path. */
export async function saveScreenshot(page: Page, file: string, fullPage: boolean): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, file);
  await page.screenshot({ path, fullPage });
  return path;
}
