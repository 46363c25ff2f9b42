/* global localStorage -- the functions passed to page.evaluate run in the browser */
/**
 * Russian and English: the admin switches to Русский in the navigation; the choice is stored with
 * the operator and the page restarts in Russian: the chat page and Reports speak Russian, with
 * Russian dates and digit grouping (ru-*.png); a reload keeps it; switching back restores English
 * for the specs that follow.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 09-language
 */
import assert from 'node:assert/strict';
import { test, shot, signInAsAdmin, stackInfo } from './support/fixtures.mjs';

const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

test.describe.serial('languages', () => {
  test('switching to Русский shows the chat and Reports in Russian with Russian dates and numbers, stored; and back', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await signInAsAdmin(page);
    const storedLanguage = async () =>
      (await (await page.request.get(new URL('/api/auth/me', stackInfo().baseUrl).toString())).json())
        .language;
    const nav = () => page.getByRole('navigation', { name: /^(Main|Основная навигация)$/ });
    try {
      assert.equal(await storedLanguage(), 'en');
      await page.getByTestId('language').selectOption('ru');
      // Saved, then the page starts again with the Russian translations.
      await page.getByRole('heading', { name: 'Диалоги' }).waitFor();
      assert.equal(await storedLanguage(), 'ru');
      assert.equal(await page.evaluate(() => localStorage.getItem('cc-language')), 'ru');
      assert.equal(await page.getByTestId('language').inputValue(), 'ru');
      await nav().getByRole('link', { name: 'Чат' }).waitFor();
      await page.getByTestId('new-thread').filter({ hasText: 'Новый диалог' }).click();
      await page.getByRole('heading', { name: 'Спросите о своих отчётах' }).waitFor();
      // Each thread shows its message count with the Russian plural.
      const meta = await page.getByTestId('thread-item').first().locator('.meta').innerText();
      assert.match(meta, /\d сообщени[еяй]$/u, `a Russian message count in "${meta}"`);
      assert.equal(await page.title(), 'Чат · Corpus Chat');
      await shot(page, 'ru-chat');

      await nav().getByRole('link', { name: 'Отчёты' }).click();
      await page.getByRole('heading', { level: 1, name: 'Отчёты' }).waitFor();
      await page.getByTestId('report-row').first().waitFor();
      const imported = await page.getByTestId('report-row').first().locator('td.date time').innerText();
      assert.match(
        imported,
        /^\d{1,2}[\s\u00a0][а-яё]+\.?[\s\u00a0]\d{4}[\s\u00a0]г\.$/u,
        `a Russian date: "${imported}"`,
      );
      const total = await page.getByTestId('total-findings').innerText();
      const overview = await (
        await page.request.get(new URL('/api/corpus/overview', stackInfo().baseUrl).toString())
      ).json();
      // Russian groups thousands with a no-break space: 1 204, never 1,204.
      assert.equal(total, String(overview.findings.total).replace(/\B(?=(\d{3})+$)/g, '\u00a0'));
      await page.getByTestId('status-counts').filter({ hasText: 'Разбор:' }).waitFor();
      await page.getByText('критическая', { exact: true }).first().waitFor();
      await page
        .getByTestId('reports-range')
        .filter({ hasText: /из \d+ отчёт/u })
        .waitFor();
      await shot(page, 'ru-reports');

      // The choice outlives a reload.
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Отчёты' }).waitFor();

      await page.getByTestId('language').selectOption('en');
      await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
      assert.equal(await storedLanguage(), 'en');
      assert.match(
        await page.getByTestId('report-row').first().locator('td.date time').innerText(),
        /^[A-Z][a-z]{2}[\s\u00a0]\d{1,2},[\s\u00a0]\d{4}$/,
      );
    } finally {
      // Whatever failed above, the specs that follow find the admin in English.
      await page.request.patch(new URL('/api/auth/me', stackInfo().baseUrl).toString(), {
        data: { language: 'en' },
        headers: CSRF,
      });
      await page.evaluate(() => localStorage.setItem('cc-language', 'en'));
    }
  });
});
