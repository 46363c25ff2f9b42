/**
 * The thread list: rename, archive and the archive filter, delete with confirmation.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 03-thread-list -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import { test, newThread, shot } from './support/fixtures.mjs';

test.describe.serial('thread list', () => {
  test('thread list: rename, archive and the archive filter, delete with confirmation', async ({
    page,
    stack,
  }) => {
    test.setTimeout(60_000);
    await page.goto(`${stack.baseUrl}/chat`);
    await newThread(page);
    const title = `Renamed ${Date.now()}`;
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('Thread title').fill(title);
    await page.getByLabel('Thread title').press('Enter');
    await page.getByTestId('thread-title').filter({ hasText: title }).waitFor();
    const item = page.getByTestId('thread-item').filter({ hasText: title });
    await item.waitFor();

    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await item.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Archived', exact: true }).click();
    await item.waitFor();
    await page.getByRole('button', { name: 'Unarchive' }).click();
    await item.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Active', exact: true }).click();
    await item.waitFor();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this thread?' });
    await dialog.waitFor();
    await shot(page, '6-delete-confirmation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await item.count(), 1, 'cancel keeps the thread');
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/chat$/);
    await item.waitFor({ state: 'detached' });
  });
});
