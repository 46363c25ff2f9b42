/* global DataTransfer, File -- the functions passed to page.evaluate run in the browser */
/**
 * Reports: importing SARIF files by the file input and by drag and drop, a duplicate refused with
 * its reason, and a hostile finding title that stays inert in the list and in an answer. Later
 * files use the two reports imported here (e2e-picked.sarif, e2e-dropped.sarif).
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 02-reports-import -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, ask, newThread, settledAnswer, shot, waitUntil } from './support/fixtures.mjs';
import { writeSarifSample } from './support/samples.mjs';

test.describe.serial('reports: import', () => {
  test('5. importing a SARIF file from the Reports page lists the report with its counts by severity', async ({
    page,
    stack,
    dialogs,
  }) => {
    test.setTimeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-e2e-'));
    try {
      const picked = writeSarifSample(dir, 'e2e-picked.sarif');
      await page.goto(`${stack.baseUrl}/reports`);
      await page.getByTestId('report-row').first().waitFor();
      const reportsTotal = async () =>
        Number((await page.getByTestId('reports-range').innerText()).match(/of (\d+)/)[1]);
      const reportsBefore = await reportsTotal();

      await page.getByTestId('import-input').setInputFiles(picked.file);
      const result = page.getByTestId('import-result').filter({ hasText: 'e2e-picked.sarif' });
      await result
        .filter({ hasText: `imported as sarif: ${picked.total} findings` })
        .waitFor({ timeout: 30_000 });

      const row = page.getByTestId('report-row').filter({ hasText: 'e2e-picked.sarif' });
      await row.waitFor();
      await waitUntil(async () => (await reportsTotal()) === reportsBefore + 1, {
        timeoutMs: 10_000,
        message: 'one more report in the list',
      });
      const cells = await row.locator('td').allInnerTexts();
      assert.equal(cells[1].trim(), 'sarif');
      assert.equal(cells[3].trim(), String(picked.total));
      for (const [sev, n] of Object.entries(picked.bySeverity)) {
        if (n)
          assert.match(
            cells[4],
            new RegExp(`${sev[0].toUpperCase()} ${n}\\b`),
            `${sev} count in "${cells[4]}"`,
          );
      }
      await shot(page, '5-sarif-imported');

      // Drag and drop works too: a second file dropped on the import area.
      const dropped = writeSarifSample(dir, 'e2e-dropped.sarif', 'dropped');
      const dataTransfer = await page.evaluateHandle(
        ({ name, content }) => {
          const dt = new DataTransfer();
          dt.items.add(new File([content], name, { type: 'application/sarif+json' }));
          return dt;
        },
        { name: 'e2e-dropped.sarif', content: fs.readFileSync(dropped.file, 'utf8') },
      );
      await page.dispatchEvent('[data-testid="dropzone"]', 'dragenter', { dataTransfer });
      await page.dispatchEvent('[data-testid="dropzone"]', 'drop', { dataTransfer });
      await page
        .getByTestId('import-result')
        .filter({ hasText: 'e2e-dropped.sarif' })
        .filter({ hasText: `imported as sarif: ${dropped.total} findings` })
        .waitFor({ timeout: 30_000 });
      await page.getByTestId('report-row').filter({ hasText: 'e2e-dropped.sarif' }).waitFor();

      // The same file again is refused with the importer's reason, shown for that file.
      await page.getByTestId('import-input').setInputFiles(picked.file);
      await page
        .getByTestId('import-result')
        .filter({ hasText: 'e2e-picked.sarif' })
        .locator('.reason')
        .first()
        .waitFor({ timeout: 30_000 });
      // Its actions (the existing report, archive it) stay together on one line beside the reason.
      const refused = page
        .getByTestId('import-result')
        .filter({ hasText: 'e2e-picked.sarif' })
        .filter({ has: page.locator('.reason') });
      const existing = await refused.getByRole('link', { name: 'Existing report' }).boundingBox();
      const archive = await refused.getByRole('button', { name: 'Archive it' }).boundingBox();
      assert.ok(
        existing && archive && Math.abs(existing.y - archive.y) < 8,
        `actions on one line: ${JSON.stringify({ existing, archive })}`,
      );
      await shot(page, '5a-import-refused');

      // A hostile finding title (a javascript: Markdown link; HTML tags are stripped at import) stays
      // text in the findings list, and the agent's answer quoting it renders no such link.
      await row.getByRole('link', { name: 'e2e-picked.sarif', exact: true }).click();
      await page.waitForURL(/reportId=/);
      const hostile = page.getByRole('row').filter({ hasText: picked.hostileTitle });
      await hostile.waitFor();
      const findingId = Number((await hostile.locator('td[data-label="#"]').innerText()).trim());
      await page.goto(`${stack.baseUrl}/chat`);
      await newThread(page);
      await ask(page, `Show finding ${findingId}`);
      const answer = await settledAnswer(page, 1);
      assert.ok(answer.includes('here'), `the answer quotes the title: ${answer}`);
      assert.equal(
        await page.locator('cc-assistant-message a[href^="javascript"]').count(),
        0,
        'no javascript: link rendered',
      );
      await page
        .locator('cc-assistant-message a', { hasText: 'here' })
        .first()
        .click({ timeout: 2000 })
        .catch(() => undefined);
      assert.deepEqual(dialogs, [], 'no script ran');
      await shot(page, '5b-hostile-title-inert');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
