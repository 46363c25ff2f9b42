/* global DataTransfer, File, document -- the functions passed to page.evaluate run in the browser */
/**
 * Scanner files in: a Burp Suite XML export uploaded on the Reports page lists its report with the
 * count the importer stored, and a Nessus file dropped on the chat composer is imported through the
 * same job, after which "how many criticals in it?" is answered from that report with the exact
 * number. Expected numbers are read from the files themselves (IMPORT-RULES: one finding per Burp
 * `issue`, Nessus `severity="4"` is critical), not from the product.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 10-attachments -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  test,
  ask,
  digitsOf,
  newThread,
  overflowsSideways,
  settledAnswer,
  sharedDir,
  shot,
  waitUntil,
} from './support/fixtures.mjs';

const BURP = path.join(sharedDir, 'corpus', 'scans', 'burp', 'dd__issue4399-large.xml');
const NESSUS = path.join(sharedDir, 'corpus', 'scans', 'nessus', 'dd__nessus_with_cvssv3.nessus');

test.describe.serial('attachments and new formats', () => {
  test('10. a Burp XML file imported from the Reports page lists its report with the stored count', async ({
    page,
    stack,
  }) => {
    test.setTimeout(120_000);
    const xml = fs.readFileSync(BURP, 'utf8');
    // IMPORT-RULES, Burp: each issue element is one finding, except those marked false positive.
    const expected =
      (xml.match(/<issue>/g) ?? []).length -
      (xml.match(/<severity>False positive<\/severity>/g) ?? []).length;
    assert.ok(expected > 0, 'the Burp file has issues');

    await page.goto(`${stack.baseUrl}/reports`);
    await page.getByTestId('report-row').first().waitFor();
    await page.getByTestId('import-input').setInputFiles(BURP);
    const result = page.getByTestId('import-result').filter({ hasText: path.basename(BURP) });
    await result
      .filter({ hasText: `imported as burp: ${expected.toLocaleString('en-US')} findings` })
      .waitFor({ timeout: 60_000 });

    const row = page.getByTestId('report-row').filter({ hasText: path.basename(BURP) });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    assert.equal(cells[1].trim(), 'burp');
    assert.deepEqual(digitsOf(cells[3]), [expected], `findings cell "${cells[3]}"`);
    // What the importer stored, as the API lists it.
    const reports = await (await page.request.get(`${stack.baseUrl}/api/reports`)).json();
    const stored = reports.find((r) => r.filename === path.basename(BURP));
    assert.equal(stored?.findingCount, expected);
    await shot(page, '10-burp-imported');
  });

  test('11. a Nessus file dropped on the chat composer is imported; "how many criticals in it?" gets the exact number', async ({
    page,
    stack,
  }) => {
    test.setTimeout(180_000);
    const content = fs.readFileSync(NESSUS, 'utf8');
    // IMPORT-RULES, Nessus: each ReportItem is one finding; severity="4" is critical.
    const criticals = (content.match(/<ReportItem\b[^>]*\bseverity="4"/g) ?? []).length;
    const total = (content.match(/<ReportItem\b/g) ?? []).length;
    assert.ok(criticals > 0, 'the Nessus file has critical items');

    await page.goto(`${stack.baseUrl}/chat`);
    await newThread(page);
    const name = path.basename(NESSUS);
    const dataTransfer = await page.evaluateHandle(
      ({ name, content }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([content], name, { type: 'application/xml' }));
        return dt;
      },
      { name, content },
    );
    await page.dispatchEvent('[data-testid="composer"]', 'dragenter', { dataTransfer });
    await page.dispatchEvent('[data-testid="composer"]', 'drop', { dataTransfer });

    const chip = page.getByTestId('attachment-chip').filter({ hasText: name });
    await chip.waitFor();
    await chip
      .getByTestId('attachment-status')
      .filter({ hasText: `ready: ${total} findings` })
      .waitFor({ timeout: 60_000 });
    await shot(page, '11a-attachment-ready');

    await ask(page, 'how many criticals in it?');
    const answer = await settledAnswer(page, 1);
    assert.match(
      answer,
      new RegExp(`\\b${criticals} findings? match`),
      `the answer states ${criticals}: ${answer}`,
    );
    assert.ok(answer.includes(name), `the answer names the file: ${answer}`);
    await shot(page, '11b-attachment-answer');

    // The attach button is reachable by keyboard and offers every extension an importer reads.
    const accept = (await page.getByTestId('attach-input').getAttribute('accept')) ?? '';
    for (const ext of ['.xml', '.nessus', '.sarif', '.json', '.jsonl', '.csv'])
      assert.ok(accept.split(',').includes(ext), `accept has ${ext}: ${accept}`);
    await page.getByLabel('Message').focus();
    await page.keyboard.press('Shift+Tab');
    await waitUntil(
      () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'attach'),
      { timeoutMs: 5_000, message: 'Shift+Tab from the composer reaches the attach button' },
    );

    // On a phone the chip and the composer fit the width.
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await chip.waitFor();
      assert.equal(await overflowsSideways(page), false, 'the thread with its attachment fits 390 px');
      await shot(page, '11c-attachment-390');
    } finally {
      if (viewport) await page.setViewportSize(viewport);
    }
  });
});
