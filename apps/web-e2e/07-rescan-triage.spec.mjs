/**
 * A re-scan of a shared ZAP report shows what was fixed; a finding triaged as a false positive is
 * exported with that status.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 07-rescan-triage -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { test, sharedDir, shot, waitUntil } from './support/fixtures.mjs';

test.describe.serial('re-scan and triage', () => {
  test('9. a re-scan shows what was fixed; a finding triaged as false positive exports with that status', async ({
    page,
    stack,
  }) => {
    test.setTimeout(180_000);
    const zapDir = path.join(sharedDir, 'corpus', 'scans', 'zap');
    const older = 'bcgov-pipeline-templates__zap-2.11.0-itsecgames.json';
    const newer = 'bcgov-pipeline-templates__zap-2.12.0-itsecgames.json';
    await page.goto(`${stack.baseUrl}/reports`);
    await page.getByTestId('report-row').first().waitFor();

    /**
     * Imports one shared scan through the file input and returns its result line. The stack's corpus
     * already holds both scans, so the first try is refused as a duplicate: the report it names is
     * archived from that line (as an operator would) and the file imported again.
     */
    const importScan = async (name) => {
      const lines = page.getByTestId('import-result').filter({ hasText: name });
      // The newest result line is listed first.
      const pick = async () => {
        const before = await lines.count();
        await page.getByTestId('import-input').setInputFiles(path.join(zapDir, name));
        await waitUntil(async () => (await lines.count()) === before + 1, {
          timeoutMs: 10_000,
          message: `a result line for ${name}`,
        });
        return lines.first();
      };
      const first = await pick();
      await first.filter({ hasText: /imported as|already imported/ }).waitFor({ timeout: 60_000 });
      if ((await first.locator('.reason').count()) === 0) return first;
      const existingId = (await first.locator('.reason').innerText()).match(
        /already imported as report (\d+)/,
      )?.[1];
      assert.ok(existingId, `refused as a duplicate: ${await first.innerText()}`);
      await first.getByRole('button', { name: 'Archive it' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Archive', exact: true }).click();
      await page
        .getByTestId('archive-notice')
        .filter({ hasText: `Archived report ${existingId}: its findings no longer count.` })
        .waitFor();
      const second = await pick();
      await second.filter({ hasText: 'imported as zap' }).waitFor({ timeout: 60_000 });
      return second;
    };
    await importScan(older);
    const rescan = await importScan(newer);
    const since = (await rescan.getByTestId('since-previous').innerText()).replace(/\s+/g, ' ').trim();
    assert.equal(since, `0 new, 2 fixed, 8 unchanged since ${older}`);
    await shot(page, '9a-rescan-imported');

    await rescan.getByRole('button', { name: 'Compare' }).click();
    const panel = page.getByTestId('comparison-panel');
    const counts = panel.getByTestId('comparison-counts');
    await counts.waitFor();
    assert.match(
      (await counts.innerText()).replace(/\s+/g, ' '),
      /^0 new 2 fixed 8 unchanged since bcgov-pipeline-templates__zap-2\.11\.0-itsecgames\.json/,
    );
    const fixedList = panel
      .locator('.lists > div')
      .filter({ has: page.getByRole('heading', { name: /^Fixed/ }) });
    const fixedTitles = (await fixedList.getByRole('link').allInnerTexts()).map((t) => t.trim()).sort();
    assert.deepEqual(fixedTitles, ['Reverse Tabnabbing', 'Timestamp Disclosure - Unix']);
    await shot(page, '9b-rescan-compared');

    // One finding of the re-scan, opened from Findings, is triaged as a false positive.
    await rescan.getByRole('link', { name: 'View findings' }).click();
    await page.waitForURL(/\/reports\/findings\?reportId=\d+$/);
    const reportId = new URL(page.url()).searchParams.get('reportId');
    await page.locator('td.title a').first().click();
    await page.waitForURL(/\/reports\/findings\/\d+/);
    const findingId = Number(new URL(page.url()).pathname.match(/\/(\d+)$/)[1]);
    await page.getByTestId('finding-title').waitFor();
    const reason = 'The cookie is set by the test harness, not the application (e2e).';
    const form = page.getByTestId('status-form');
    await form.locator('#t-status').selectOption('false_positive');
    await form.locator('#t-reason').fill(reason);
    await form.getByRole('button', { name: 'Change status' }).click();
    await page
      .getByTestId('finding-status')
      .filter({ hasText: /^false positive$/ })
      .waitFor();
    const change = page
      .getByTestId('status-changes')
      .locator('li')
      .filter({ hasText: '→ false positive' })
      .filter({ hasText: reason });
    await change.waitFor();
    await shot(page, '9c-finding-false-positive');

    // The Findings export of that report has every finding the page counts, with the new status.
    await page.goto(`${stack.baseUrl}/reports/findings?reportId=${reportId}`);
    const totalText = await page
      .getByTestId('findings-total')
      .filter({ hasText: /\d+ findings?/ })
      .innerText();
    const total = Number(totalText.match(/^([\d,]+) finding/)[1].replace(/,/g, ''));
    const href = await page.getByTestId('export-csv').getAttribute('href');
    assert.match(href, new RegExp(`reportId=${reportId}\\b`), `the export keeps the filter: ${href}`);
    const res = await page.request.get(new URL(href, stack.baseUrl).toString());
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-type'], /^text\/csv/);
    const rows = parseCsv(await res.text(), { columns: true });
    assert.equal(rows.length, total, `CSV data rows equal the Findings total ${total}`);
    const row = rows.find((r) => Number(r.id) === findingId);
    assert.ok(row, `finding ${findingId} is in the CSV`);
    assert.equal(row.status, 'false_positive');
    assert.equal(
      rows.filter((r) => r.status === 'false_positive').length,
      1,
      'only the triaged finding is a false positive',
    );
    await shot(page, '9d-findings-export');
  });
});
