/* global document -- the functions passed to page.waitForFunction / page.evaluate run in the browser */
/**
 * What an operator does in the app, as steps the scenarios share: sign in, start a thread, ask,
 * wait for the stored answer, change the model settings, save a named screenshot. Each takes the
 * page; the page's base URL is the stack's, so paths are relative (`page.goto('/reports')`).
 */
import path from 'node:path';
import process from 'node:process';
import { waitUntil } from './stack.mjs';
import { artifactsDir } from './paths.mjs';

/** The stack the global setup started (support/global-setup.mjs). */
export function stackInfo() {
  const baseUrl = process.env.CC_E2E_BASE_URL;
  if (!baseUrl)
    throw new Error(
      'No stack: run the browser tests with `npx playwright test -c apps/web-e2e/playwright.config.mjs`.',
    );
  return {
    baseUrl,
    adminUser: process.env.CC_E2E_ADMIN_USER,
    adminPassword: process.env.CC_E2E_ADMIN_PASSWORD,
  };
}

/** Saves a screenshot of the window as test-artifacts/e2e/<name>.png. */
export async function shot(page, name) {
  const file = path.join(artifactsDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** The numbers in a text, with thousands separators removed. */
export const digitsOf = (text) => (text.replace(/(\d),(?=\d{3}\b)/g, '$1').match(/\d+/g) ?? []).map(Number);

/** Signs in from the login page (the admin by default) and waits for the live connection. */
export async function signIn(page, username = stackInfo().adminUser, password = stackInfo().adminPassword) {
  await page.goto('/');
  await page.waitForURL(/\/login/);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/chat$/);
  await page.getByTestId('operator').waitFor();
  await waitUntil(
    async () => (await page.getByTestId('connection').getAttribute('data-state')) === 'connected',
    {
      timeoutMs: 15_000,
      message: 'the connection indicator to show connected',
    },
  );
}

/** Signs out whoever is signed in (cookies cleared) and signs in as the admin. */
export async function signInAsAdmin(page) {
  await page.context().clearCookies();
  await signIn(page);
}

/** Starts a thread from the chat page; resolves when the composer has the focus. */
export async function newThread(page) {
  await page.getByTestId('new-thread').click();
  await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
  await page.getByText('Ask about your reports').waitFor();
  // The next thing typed is the question: the composer has the focus.
  await waitUntil(() => page.evaluate(() => document.activeElement?.id === 'composer-input'), {
    timeoutMs: 5_000,
    message: 'the composer to have the focus after New thread',
  });
}

export async function ask(page, text) {
  const box = page.getByLabel('Message');
  await box.fill(text);
  await box.press('Enter');
}

/** Waits until `count` assistant answers are on screen, all stored (none streaming), and returns the last one's text. */
export async function settledAnswer(page, count, timeoutMs = 60_000) {
  await page.waitForFunction(
    (n) => {
      const answers = document.querySelectorAll('cc-assistant-message');
      return answers.length === n && !document.querySelector('cc-assistant-message article.streaming');
    },
    count,
    { timeout: timeoutMs },
  );
  return page.locator('cc-assistant-message').last().getByTestId('answer').innerText();
}

/** Text of the answer being streamed right now ('' when none). */
export const liveText = (page) =>
  page.evaluate(
    () =>
      document
        .querySelector('cc-assistant-message article.streaming [data-testid="answer"]')
        ?.textContent?.trim() ?? '',
  );

/** Whether the page scrolls sideways (a layout too wide for the window). */
export const overflowsSideways = (page) =>
  page.evaluate(() =>
    [document.documentElement, document.querySelector('main')].some(
      (e) => e && e.scrollWidth > e.clientWidth + 1,
    ),
  );

/**
 * Saves the model settings from the Settings page (admin only): `backend` 'builtin' or 'openai'
 * with `baseUrl` and `model`; `testFirst` runs Test connection on the form's values first.
 */
/** Makes the built-in planner answer (an earlier file may have pointed Settings at a model server). */
export async function useBuiltinPlanner(page) {
  await page.goto('/settings');
  const builtin = page.getByRole('radio', { name: /Built-in planner/ });
  await builtin.waitFor();
  if (!(await builtin.isChecked())) await putModelSettings(page, { backend: 'builtin' });
}

export async function putModelSettings(page, { backend, baseUrl, model, testFirst = false }) {
  await page.goto('/settings');
  await page
    .getByRole('radio', { name: backend === 'openai' ? /OpenAI-compatible/ : /Built-in planner/ })
    .check();
  // The built-in planner has no server: no Test connection, a note instead.
  if (backend === 'builtin') await page.getByTestId('builtin-note').waitFor();
  if (backend === 'openai') {
    await page.getByLabel('Base URL').fill(baseUrl);
    await page.getByLabel('Model', { exact: true }).fill(model);
  }
  if (testFirst) {
    // "Test connection" checks the values in the form against the server before they are saved.
    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByRole('heading', { name: 'Connection works' }).waitFor({ timeout: 15_000 });
    await shot(page, '3-settings-test-connection');
  }
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved. The next turn uses these settings.').waitFor();
}
