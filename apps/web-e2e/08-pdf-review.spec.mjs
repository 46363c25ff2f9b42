/**
 * PDF reports with the built-in back end: a shared PDF uploaded from Reports lands in
 * `needs review` with its text; the operator reads it on the report's page, enters a finding by
 * hand with the keyboard, marks the report reviewed, and the finding is counted. The page is
 * checked at a phone's 390 px too.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 08-pdf-review
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  test,
  digitsOf,
  overflowsSideways,
  useBuiltinPlanner,
  sharedDir,
  shot,
  waitUntil,
} from './support/fixtures.mjs';

const PDF = 'ppr__NCATS-CyHy-Sample-Report.pdf';

test.describe.serial('reports: a PDF reviewed by hand', () => {
  test('8. a PDF waits for review, takes a finding entered by hand, is marked reviewed and counted', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    // Without a model the PDF is not read by one: it waits for a person. (Save is disabled when
    // the built-in planner is already chosen.)
    await useBuiltinPlanner(page);
    await page.goto('/reports');
    const totalFindings = async () => digitsOf(await page.getByTestId('total-findings').innerText())[0];
    await page.getByTestId('total-findings').waitFor();
    const before = await totalFindings();

    await page.getByTestId('import-input').setInputFiles(path.join(sharedDir, 'corpus', 'pdf', PDF));
    const result = page.getByTestId('import-result').filter({ hasText: PDF });
    await result.getByTestId('needs-review').waitFor({ timeout: 120_000 });
    const row = page.getByTestId('report-row').filter({ hasText: PDF });
    await row.getByTestId('report-status').filter({ hasText: 'needs review' }).waitFor();
    await shot(page, '8-pdf-needs-review');

    await result.getByTestId('review-link').click();
    await page.waitForURL(/\/reports\/\d+$/);
    await page.getByTestId('report-status').filter({ hasText: 'needs review' }).waitFor();
    // The text is one focusable, scrollable block: a keyboard user can scroll it, the browser's find searches it.
    const text = page.getByTestId('report-text');
    await text
      .getByText(/Cyber\s+Hygiene/i)
      .first()
      .waitFor();
    // A key scrolls the block only once its text overflows it (before that it scrolls the page, as
    // a CI run saw): wait for the overflow, then press again until the block has moved.
    await waitUntil(() => text.evaluate((el) => el.scrollHeight > el.clientHeight + 50), {
      timeoutMs: 30_000,
      message: 'the text to overflow its block',
    });
    await waitUntil(
      async () => {
        await text.focus();
        await page.keyboard.press('PageDown');
        return (await text.evaluate((el) => el.scrollTop)) > 0;
      },
      { timeoutMs: 30_000, message: 'the text to scroll by keyboard' },
    );

    // The manual-entry form, by keyboard only.
    await page.getByTestId('manual-title').focus();
    await page.keyboard.type('Weak TLS configuration on the VPN gateway');
    await page.keyboard.press('Tab');
    await page.getByTestId('manual-severity').selectOption('high');
    await page.keyboard.press('Tab');
    await page.keyboard.type('CWE-327');
    await page.keyboard.press('Tab');
    await page.keyboard.type('vpn.example.gov:443');
    await page.keyboard.press('Tab');
    await page.keyboard.type('TLS 1.0 and RC4 accepted, as the report lists.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.getByTestId('added-findings').getByText('Weak TLS configuration on the VPN gateway').waitFor();
    await page
      .getByTestId('report-finding-count')
      .filter({ hasText: /^1 finding$/ })
      .waitFor();
    await shot(page, '8a-pdf-finding-entered');

    // At a phone's width the page still fits.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.getByTestId('manual-finding-form').waitFor();
      assert.equal(
        await overflowsSideways(page),
        false,
        'the report page does not scroll sideways at 390 px',
      );
      await shot(page, '8b-pdf-review-390px');
    } finally {
      await page.setViewportSize({ width: 1360, height: 860 });
    }

    await page.getByTestId('mark-reviewed').click();
    await page.getByTestId('report-status').filter({ hasText: 'ready' }).waitFor();
    assert.equal(await page.getByTestId('manual-finding-form').count(), 0, 'no manual entry once reviewed');

    // Counted: the corpus total and the report's row.
    await page.goto('/reports');
    await page.getByTestId('total-findings').waitFor();
    await waitUntil(async () => (await totalFindings()) === before + 1, {
      timeoutMs: 10_000,
      message: 'the hand-entered finding in the total',
    });
    const cells = await page.getByTestId('report-row').filter({ hasText: PDF }).locator('td').allInnerTexts();
    assert.equal(cells[1].trim(), 'pdf');
    assert.equal(cells[2].trim().toLowerCase(), 'ready'); // shown capitalised by CSS
    assert.equal(cells[3].trim(), '1');
    assert.match(cells[4], /H 1\b/);
  });
});
