/**
 * The fixtures every browser spec imports:
 *
 *   import { test, signIn, newThread, ask, settledAnswer, shot } from './support/fixtures.mjs';
 *   test.describe.serial('my area', () => {
 *     test('does what an operator would notice', async ({ page }) => {
 *       await page.goto('/reports');
 *       …
 *     });
 *   });
 *
 * - `page`: one page for the whole run (worker-scoped), signed in as the admin when the worker
 *   starts; every spec continues where the previous one left it (URL, viewport, who is signed in),
 *   so a spec that needs another state sets it up first (`signInAsAdmin(page)`, `page.goto(…)`).
 *   Its base URL is the stack's. Uncaught page errors fail the test during which they happened.
 * - `stack`: `{ baseUrl, adminUser, adminPassword }` of the running stack.
 * - `model`: the scripted model server (support/scripted-model.mjs), to point Settings at.
 * - `dialogs`: messages of the browser dialogs the page opened (each dismissed).
 *
 * On failure Playwright attaches a screenshot (`screenshot: 'only-on-failure'`) and this module the
 * page's URL and text.
 */
import assert from 'node:assert/strict';
import { test as base, expect } from '@playwright/test';
import { signIn, stackInfo } from './app.mjs';
import { ScriptedModel } from './scripted-model.mjs';

export { expect };
export {
  ask,
  digitsOf,
  liveText,
  newThread,
  overflowsSideways,
  putModelSettings,
  settledAnswer,
  shot,
  signIn,
  signInAsAdmin,
  stackInfo,
  useBuiltinPlanner,
} from './app.mjs';
export { expectedNumbers, sharedDir, artifactsDir } from './paths.mjs';
export { waitUntil } from './stack.mjs';

export const test = base.extend({
  stack: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a function needs from this pattern
    async ({}, use) => use(stackInfo()),
    { scope: 'worker' },
  ],
  model: [
    // eslint-disable-next-line no-empty-pattern -- as above
    async ({}, use) => {
      const model = await ScriptedModel.start();
      await use(model);
      await model.close();
    },
    { scope: 'worker' },
  ],
  session: [
    async ({ browser, stack }, use, workerInfo) => {
      const context = await browser.newContext({
        viewport: workerInfo.project.use.viewport,
        baseURL: stack.baseUrl,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const session = { page, dialogs: [], pageErrors: [], errorsReported: 0 };
      page.on('dialog', (d) => {
        session.dialogs.push(d.message());
        void d.dismiss();
      });
      page.on('pageerror', (e) => session.pageErrors.push(e.message));
      // Angular's global error listeners take uncaught errors before the browser reports them and
      // log them through ErrorHandler, as `console.error('ERROR', error)`.
      page.on('console', (m) => {
        if (m.type() === 'error' && m.text().startsWith('ERROR')) session.pageErrors.push(m.text());
      });
      await signIn(page, stack.adminUser, stack.adminPassword);
      await use(session);
      await context.close();
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  page: async ({ session }, use) => use(session.page),
  dialogs: async ({ session }, use) => use(session.dialogs),
  baseURL: async ({ stack }, use) => use(stack.baseUrl),
  pageChecks: [
    async ({ session }, use, testInfo) => {
      await use();
      if (testInfo.status !== testInfo.expectedStatus) {
        const text = await session.page
          .locator('body')
          .innerText({ timeout: 5_000 })
          .catch(() => '');
        await testInfo.attach('page text at failure', {
          body: `${session.page.url()}\n\n${text.slice(0, 4000)}`,
          contentType: 'text/plain',
        });
      }
      // Errors since the last check (also those of the sign-in before the first test).
      const errors = session.pageErrors.slice(session.errorsReported);
      session.errorsReported = session.pageErrors.length;
      assert.deepEqual(errors, [], 'the pages ran without uncaught errors');
    },
    { auto: true },
  ],
});
