/**
 * Sessions as rows: one operator signed in in two browsers (two contexts). Signing out in one
 * leaves the other signed in and live; My account lists both sessions; "Sign out everywhere" ends
 * both, and the other browser is sent to the login page when its live connection is dropped.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 11-sessions
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test, signIn, stackInfo, waitUntil } from './support/fixtures.mjs';

const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };

test.describe.serial('sessions', () => {
  test('sign-out ends one browser’s session only; sign out everywhere ends both', async ({
    page,
    browser,
  }) => {
    test.setTimeout(120_000);
    const username = `sess-${randomUUID().slice(0, 8)}`;
    const password = 'a-long-enough-password';
    const created = await page.request.post('/api/operators', {
      headers: CSRF,
      data: { username, displayName: 'Two Browsers', password, role: 'operator' },
    });
    assert.equal(created.status(), 201, await created.text());

    const open = async () => {
      const context = await browser.newContext({ baseURL: stackInfo().baseUrl });
      const tab = await context.newPage();
      tab.setDefaultTimeout(30_000);
      return { context, tab };
    };
    const me = async (tab) => (await tab.request.get('/api/auth/me')).status();
    const connected = (tab) =>
      waitUntil(
        async () => (await tab.getByTestId('connection').getAttribute('data-state')) === 'connected',
        {
          timeoutMs: 15_000,
          message: 'the connection indicator to show connected',
        },
      );
    const a = await open();
    const b = await open();
    try {
      await signIn(a.tab, username, password);
      await signIn(b.tab, username, password);

      // Signing out in A ends A's session only: B stays signed in and live.
      await a.tab.getByRole('button', { name: 'Sign out', exact: true }).click();
      await a.tab.waitForURL(/\/login/);
      assert.equal(await me(a.tab), 401);
      assert.equal(await me(b.tab), 200);
      await b.tab.reload();
      await b.tab.getByTestId('operator').waitFor();
      await connected(b.tab);

      // A signs in again; My account lists both sessions, this one marked.
      await signIn(a.tab, username, password);
      await a.tab.goto('/account');
      const table = a.tab.getByTestId('sessions');
      await waitUntil(async () => (await table.locator('tbody tr').count()) === 2, {
        timeoutMs: 10_000,
        message: 'two sessions listed',
      });
      await table.getByText('this browser').waitFor();

      // Sign out everywhere: A lands on the login page, and B is sent there when its socket drops.
      await a.tab.getByRole('button', { name: 'Sign out everywhere' }).click();
      await a.tab.waitForURL(/\/login/);
      await b.tab.waitForURL(/\/login/, { timeout: 30_000 });
      assert.equal(await me(a.tab), 401);
      assert.equal(await me(b.tab), 401);
    } finally {
      await a.context.close();
      await b.context.close();
    }
  });
});
