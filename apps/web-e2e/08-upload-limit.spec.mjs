/**
 * A file over the import limit (50 MB by default) picked on the Reports page: the API refuses it
 * with 413 while it streams, and the page shows that reason naming the limit, not a generic error.
 * Needs only the signed-in page.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 08-upload-limit
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, shot, signInAsAdmin } from './support/fixtures.mjs';

test('a file over the 50 MB import limit shows the 413 reason and imports nothing', async ({
  page,
  stack,
}) => {
  test.setTimeout(120_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cc-e2e-big-'));
  try {
    const file = path.join(dir, 'e2e-too-large.sarif');
    // 52 MB of a SARIF-looking file: the size alone must refuse it, before any parsing.
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, '{"version":"2.1.0","runs":[{"results":[');
    const chunk = Buffer.alloc(1024 * 1024, ' ');
    for (let i = 0; i < 52; i++) fs.writeSync(fd, chunk);
    fs.writeSync(fd, ']}]}');
    fs.closeSync(fd);

    await signInAsAdmin(page);
    await page.goto(`${stack.baseUrl}/reports`);
    await page.getByTestId('import-input').waitFor({ state: 'attached' });
    await page.getByTestId('import-input').setInputFiles(file);
    const refusal = page.getByTestId('import-result').filter({ hasText: /over the 50 MB import limit/ });
    await refusal.waitFor({ timeout: 60_000 });
    assert.doesNotMatch(await refusal.innerText(), /returned no result/);
    assert.equal(await page.getByTestId('report-row').filter({ hasText: 'e2e-too-large.sarif' }).count(), 0);
    await shot(page, '8-upload-413');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
