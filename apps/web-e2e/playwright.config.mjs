/**
 * Browser end-to-end tests of Corpus Chat on @playwright/test, run by `npm test` (step `e2e`) or:
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs                      every spec
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 01-chat -g "follow-up"  one file, one test
 *
 * The global setup starts the real stack once (see support/global-setup.mjs): a fresh Postgres
 * database with the sample corpus of ../shared/questions/questions.json, its own Redis prefix, the
 * API serving the production web build on one origin, and one agent-worker. One worker runs the
 * spec files in file-name order (`01-…`, `02-…`) on one signed-in admin page, so scenarios continue
 * from each other's state; each file is a serial group (a failure skips the rest of that file).
 *
 * A new scenario: a new `NN-area.spec.mjs` here that imports `test` and the helpers from
 * ./support/fixtures.mjs (see its header). Screenshots and logs go to test-artifacts/e2e/
 * (Playwright's own output in results/, the HTML report in report/).
 *
 * Env: SHARED_DIR (default ../shared), CHROMIUM_PATH (default /usr/bin/chromium),
 * E2E_SKIP_BUILD=1 (reuse dist/web/browser), E2E_HEADFUL=1, TEST_PG_URL, TEST_REDIS_URL.
 */
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const here = path.dirname(fileURLToPath(import.meta.url));
const artifacts = path.resolve(here, '..', '..', 'test-artifacts', 'e2e');

export default defineConfig({
  testDir: here,
  testMatch: '*.spec.mjs',
  outputDir: path.join(artifacts, 'results'),
  globalSetup: path.join(here, 'support', 'global-setup.mjs'),
  // Scenarios share one stack, one page and their data: one worker, files in name order.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 120_000,
  // The stack's start (web build, corpus import) counts against this too.
  globalTimeout: 30 * 60_000,
  reporter: [['list'], ['html', { open: 'never', outputFolder: path.join(artifacts, 'report') }]],
  use: {
    headless: process.env.E2E_HEADFUL !== '1',
    viewport: { width: 1360, height: 860 },
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
