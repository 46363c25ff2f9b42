/**
 * A phone-width window (390 px): Reports (searching 02-reports-import's e2e-picked.sarif),
 * Findings and Chat fit; a draft survives an expired session.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 06-phone -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import { test, newThread, overflowsSideways, shot, waitUntil } from './support/fixtures.mjs';

test.describe.serial('phone', () => {
  test('a phone-width window (390 px): Reports, Findings and Chat fit; a draft survives an expired session', async ({
    page,
    stack,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${stack.baseUrl}/reports`);
      await page.getByTestId('report-row').first().waitFor();
      assert.equal(await overflowsSideways(page), false, 'Reports fits 390 px');
      await page.getByTestId('reports-table').scrollIntoViewIfNeeded();
      await shot(page, '8a-reports-390');
      await page.getByTestId('reports-search').fill('e2e-picked');
      await waitUntil(async () => (await page.getByTestId('report-row').count()) === 1, {
        timeoutMs: 5_000,
        message: 'the search to leave one report',
      });

      await page.goto(`${stack.baseUrl}/reports/findings?severity=critical`);
      await page
        .getByTestId('findings-total')
        .filter({ hasText: /finding/ })
        .waitFor();
      await page.locator('td.title a').first().waitFor();
      assert.equal(await overflowsSideways(page), false, 'Findings fits 390 px');
      await shot(page, '8b-findings-390');
      // A finding opened from the list comes back to the same filter through the breadcrumb.
      await page.locator('td.title a').first().click();
      await page.getByTestId('finding-title').waitFor();
      await page.getByTestId('crumb-findings').click();
      await page.waitForURL(/\/reports\/findings\?severity=critical$/);

      await page.goto(`${stack.baseUrl}/chat`);
      await newThread(page);
      const threadUrl = page.url();
      const draft = 'How many findings are critical? (typed before the session expired)';
      await page.getByLabel('Message').fill(draft);
      assert.equal(await overflowsSideways(page), false, 'Chat fits 390 px');
      await shot(page, '8c-chat-390');
      // The session ends while the question is typed: after signing in again the draft is there.
      await page.context().clearCookies();
      await page.reload();
      await page.waitForURL(/\/login/);
      await page.getByLabel('Username').fill(stack.adminUser);
      await page.getByLabel('Password').fill(stack.adminPassword);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(threadUrl);
      await waitUntil(async () => (await page.getByLabel('Message').inputValue()) === draft, {
        timeoutMs: 10_000,
        message: 'the draft to be back',
      });
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }
  });
});
