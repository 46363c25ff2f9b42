/**
 * An operator re-rates a finding: the finding's history shows the severity before and after, the
 * Findings page's Edited filter and its export keep exactly that finding, and the built-in planner
 * answers "how many findings did operators re-rate?" with 1.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 08-rerate-finding
 */
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { test, ask, newThread, settledAnswer, shot } from './support/fixtures.mjs';

test.describe.serial('re-rated findings', () => {
  test('10. a re-rated finding shows the change in its history; the Edited filter, the export and the planner count it', async ({
    page,
    stack,
  }) => {
    test.setTimeout(180_000);
    // The built-in planner answers here: it is the default, and scenario 7 switches back to it.
    await page.goto('/reports/findings?severity=low');
    await page.locator('td.title a').first().click();
    await page.waitForURL(/\/reports\/findings\/\d+/);
    const findingId = Number(new URL(page.url()).pathname.match(/\/(\d+)$/)[1]);
    await page.getByTestId('finding-title').waitFor();

    await page.getByTestId('edit-start').click();
    const form = page.getByTestId('edit-form');
    await form.locator('#e-severity').selectOption('critical');
    const reason = 'Exploited in staging: the scanner under-rated it (e2e).';
    await form.locator('#e-reason').fill(reason);
    await form.getByRole('button', { name: 'Save as new version' }).click();
    const latest = page.getByTestId('version-history').getByTestId('version-entry').first();
    await latest.filter({ hasText: 'Version 2' }).filter({ hasText: reason }).waitFor();
    const change = (await latest.getByTestId('version-change').locator('th, td').allInnerTexts()).map((t) =>
      t.trim(),
    );
    assert.deepEqual(change, ['Severity', 'low', 'critical']);
    await shot(page, '10a-finding-re-rated');

    // The Findings page's Edited filter keeps exactly that finding, and so does its export.
    await page.goto('/reports/findings');
    await page.locator('#f-edited').selectOption('severity');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/edited=severity/);
    await page
      .getByTestId('findings-total')
      .filter({ hasText: /(^|\s)1 finding\b/ })
      .waitFor();
    const links = await page.locator('td.title a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.equal(links.length, 1);
    assert.match(links[0], new RegExp(`/reports/findings/${findingId}\\b`));
    const href = await page.getByTestId('export-csv').getAttribute('href');
    const res = await page.request.get(new URL(href, stack.baseUrl).toString());
    assert.equal(res.status(), 200);
    const rows = parseCsv(await res.text(), { columns: true });
    assert.deepEqual(
      rows.map((r) => [Number(r.id), r.severity]),
      [[findingId, 'critical']],
    );
    await shot(page, '10b-findings-re-rated');

    // The built-in planner answers with the exact count and names what it counted.
    await page.goto('/chat');
    await newThread(page);
    await ask(page, 'How many findings did operators re-rate?');
    const answer = await settledAnswer(page, 1);
    // The search_findings card ("1 of 1"), then the answer naming what it counted.
    assert.match(answer, /^1 of 1$/m);
    assert.match(answer, /^1 finding matches re-rated by operators/m);
    assert.match(answer, new RegExp(`#${findingId}\\b`));
    await shot(page, '10c-chat-re-rated');
  });
});
