/* global document, getComputedStyle, localStorage -- the functions passed to page.evaluate run in the browser */
/**
 * Accessibility: axe-core (WCAG 2 A and AA rules) finds no serious or critical violation on any page
 * of the app in light and dark mode; a keyboard alone signs in, asks a question, rates the answer and
 * opens a finding, with the focus visible; `?` lists the shortcuts. Also the operator's side of the
 * answer feedback and the thread debug panel, which the pages visited here show. Runs last: it
 * signs in again and leaves the admin signed in.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 90-accessibility -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import AxeBuilder from '@axe-core/playwright';
import {
  test,
  ask,
  newThread,
  putModelSettings,
  settledAnswer,
  shot,
  signInAsAdmin,
  waitUntil,
} from './support/fixtures.mjs';

const SCHEMES = ['light', 'dark'];
const BREAKDOWN = 'Give me a breakdown of all findings by severity.';

/** The serious and critical WCAG 2 A/AA violations on the page as it is now, one readable line per element. */
async function seriousViolations(page) {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (n) =>
          `${v.impact} ${v.id}: ${v.help} (${v.helpUrl})\n    at ${n.target.join(' ')}\n    ${n.failureSummary?.replace(/\n/g, '\n    ')}`,
      ),
    );
}

/** Switches the app to `scheme` (its system-preference mode, with no stored choice). */
async function useScheme(page, scheme) {
  await page.emulateMedia({ colorScheme: scheme });
  await waitUntil(() => page.evaluate((s) => document.documentElement.dataset.theme === s, scheme), {
    timeoutMs: 5_000,
    message: `the page to switch to ${scheme} mode`,
  });
}

/** Checks the page as it is now in light and dark mode, saving a screenshot of each. */
async function checkPage(page, name) {
  const found = [];
  for (const scheme of SCHEMES) {
    await useScheme(page, scheme);
    await shot(page, `a11y-${name}-${scheme}`);
    found.push(...(await seriousViolations(page)).map((v) => `[${name}, ${scheme}] ${v}`));
  }
  return found;
}

/** Presses `key` (Tab) until `matches` (see focusIs) holds, at most `max` times; fails naming what got the focus. */
async function tabTo(page, description, matches, { max = 60, key = 'Tab' } = {}) {
  const visited = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const here = await page.evaluate(matches);
    if (here === true) return;
    visited.push(String(here));
  }
  assert.fail(`${max} Tabs never reached ${description}; the focus went through: ${visited.join(' → ')}`);
}

/** In the browser: a short description of the focused element, or true when `test` accepts it. */
const focusIs = (test) => `(() => {
  const e = document.activeElement;
  if (!e) return 'nothing';
  if ((${test})(e)) return true;
  return (e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' "' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 30) + '"');
})()`;

/** Whether the focused element shows where the focus is (an outline or a focus ring). */
const focusVisible = (page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return false;
    const s = getComputedStyle(e);
    return (
      (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== 'none')
    );
  });

test.describe.serial('accessibility', () => {
  test('a keyboard alone signs in, asks, rates the answer and opens a finding; ? lists the shortcuts', async ({
    page,
    stack,
  }) => {
    test.setTimeout(180_000);
    await signInAsAdmin(page);
    // The built-in planner answers (earlier files may have pointed Settings at a model server).
    await page.goto('/settings');
    const builtin = page.getByRole('radio', { name: /Built-in planner/ });
    await builtin.waitFor();
    if (!(await builtin.isChecked())) await putModelSettings(page, { backend: 'builtin' });
    await page.evaluate(() => localStorage.removeItem('cc-theme'));
    await page.context().clearCookies();
    await page.goto('/login');
    await page.getByLabel('Username').waitFor();

    await tabTo(
      page,
      'the username field',
      focusIs(
        (e) => e.id && document.querySelector(`label[for="${e.id}"]`)?.textContent?.includes('Username'),
      ),
    );
    await page.keyboard.type(stack.adminUser);
    await tabTo(
      page,
      'the password field',
      focusIs((e) => e.type === 'password'),
    );
    await page.keyboard.type(stack.adminPassword);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/chat$/);
    await page.getByTestId('new-thread').waitFor();

    // ? (outside a text field) lists the shortcuts; Escape closes the list.
    await page.locator('body').press('?');
    const shortcuts = page.getByTestId('shortcuts-dialog');
    await shortcuts.waitFor();
    assert.match(await shortcuts.innerText(), /Enter[\s\S]*Send the message/);
    await shot(page, 'a11y-shortcuts');
    await page.keyboard.press('Escape');
    await shortcuts.waitFor({ state: 'hidden' });

    await tabTo(
      page,
      'New thread',
      focusIs((e) => e.dataset.testid === 'new-thread'),
    );
    assert.ok(await focusVisible(page), 'New thread shows the focus');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/chat\/[0-9a-f-]{36}$/);
    await waitUntil(() => page.evaluate(() => document.activeElement?.id === 'composer-input'), {
      timeoutMs: 5_000,
      message: 'the composer to take the focus',
    });
    await page.keyboard.type('How many findings relate to SQL injection?');
    await page.keyboard.press('Enter');
    await settledAnswer(page, 1, 90_000);

    // Rate the answer: Shift+Tab back from the composer reaches the answer's buttons.
    await tabTo(
      page,
      'the answer\'s "Helpful" button',
      focusIs((e) => e.dataset.testid === 'feedback-up'),
      { key: 'Shift+Tab', max: 40 },
    );
    await page.keyboard.press('Enter');
    await waitUntil(
      async () => (await page.getByTestId('feedback-up').getAttribute('aria-pressed')) === 'true',
      { timeoutMs: 10_000, message: 'the rating to be saved' },
    );
    await shot(page, 'a11y-keyboard-rated');

    // The tool card opens its findings, and the list a finding.
    await tabTo(
      page,
      'the tool card\'s "Open in Findings"',
      focusIs((e) => e.tagName === 'A' && e.classList.contains('open')),
      { key: 'Shift+Tab', max: 40 },
    );
    assert.ok(await focusVisible(page), '"Open in Findings" shows the focus');
    await shot(page, 'a11y-keyboard-focus-visible');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/reports\/findings\?/);
    await page.locator('td.title a').first().waitFor();
    await tabTo(
      page,
      'a finding of the list',
      focusIs((e) => e.tagName === 'A' && /^\/reports\/findings\/\d+/.test(e.getAttribute('href') ?? '')),
      { max: 80 },
    );
    assert.ok(await focusVisible(page), 'the finding link shows the focus');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/reports\/findings\/\d+/);
    await page.getByTestId('finding-title').waitFor();
    await shot(page, 'a11y-keyboard-finding');
  });

  test('the stored rating shows after a reload and on the admins Feedback page; the debug panel shows the thread', async ({
    page,
  }) => {
    await page.goBack();
    await page.goBack();
    await settledAnswer(page, 1);
    const threadId = page.url().split('/').at(-1);
    await page.reload();
    await settledAnswer(page, 1);
    assert.equal(await page.getByTestId('feedback-up').getAttribute('aria-pressed'), 'true');

    const toggle = page.getByTestId('debug-toggle');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false', 'the debug panel starts closed');
    await toggle.click();
    await page.getByTestId('thread-debug').waitFor();
    assert.equal((await page.getByTestId('debug-thread-id').innerText()).trim(), threadId);
    assert.match(
      await page.getByTestId('debug-connection').innerText(),
      /^connected \((websocket|polling)\)$/,
    );
    assert.match(await page.getByTestId('debug-model').innerText(), /\S/);
    await shot(page, 'a11y-debug-panel');

    await page.goto('/feedback');
    await page.getByTestId('feedback-entries').locator('tbody tr').first().waitFor();
    const row = page
      .getByTestId('feedback-entries')
      .locator('tbody tr')
      .filter({ hasText: 'How many findings relate to SQL injection?' })
      .first();
    assert.match(await row.innerText(), /Helpful/);
    assert.equal(await row.getByRole('link').getAttribute('href'), `/chat/${threadId}`);
  });
});

/** Each page as the checks visit it: opens it (signed in as the admin) and waits until it shows its content. */
const PAGES = [
  [
    'sign-in',
    async (page) => {
      await page.context().clearCookies();
      await page.goto('/login');
      await page.getByLabel('Username').waitFor();
    },
  ],
  [
    'chat',
    // An answer with its tool card and chart, the feedback buttons, and the debug panel (left open above).
    async (page) => {
      await page.goto('/chat');
      await newThread(page);
      await ask(page, BREAKDOWN);
      await settledAnswer(page, 1, 90_000);
      await page.getByTestId('count-chart').first().waitFor();
      await page.getByTestId('answer-feedback').first().waitFor();
      if ((await page.getByTestId('debug-toggle').getAttribute('aria-expanded')) !== 'true')
        await page.getByTestId('debug-toggle').click();
      await page.getByTestId('thread-debug').waitFor();
    },
  ],
  [
    'reports',
    async (page) => {
      await page.goto('/reports');
      await page.getByTestId('report-row').first().waitFor();
    },
  ],
  [
    'report',
    async (page) => {
      await page.goto('/reports');
      await page.getByTestId('report-row').first().waitFor();
      const link = page
        .getByTestId('report-row')
        .first()
        .locator('a[href^="/reports/"]:not([href*="findings"])')
        .first();
      test.skip((await link.count()) === 0, 'this build has no report page');
      await link.click();
      await page.waitForURL(/\/reports\/\d+/);
      await page.locator('h1').first().waitFor();
    },
  ],
  [
    'findings',
    async (page) => {
      await page.goto('/reports/findings?severity=critical');
      await page.locator('td.title a').first().waitFor();
    },
  ],
  [
    'finding',
    async (page) => {
      await page.goto('/reports/findings?severity=critical');
      await page.locator('td.title a').first().click();
      await page.getByTestId('finding-title').waitFor();
    },
  ],
  ['account', (page) => openAndWait(page, '/account', 'h1')],
  ['settings', (page) => openAndWait(page, '/settings', 'h1')],
  ['operators', (page) => openAndWait(page, '/operators', 'table tbody tr')],
  ['audit', (page) => openAndWait(page, '/audit', '[data-testid="audit-events"] tbody tr')],
  ['feedback', (page) => openAndWait(page, '/feedback', '[data-testid="feedback-entries"] tbody tr')],
];

async function openAndWait(page, path, selector) {
  await page.goto(path);
  await page.locator(selector).first().waitFor();
}

// Not serial: a page with violations does not stop the others from being checked.
test.describe('axe-core finds no serious or critical violation', () => {
  for (const [name, open] of PAGES) {
    test(`on ${name}, light and dark`, async ({ page }) => {
      test.setTimeout(180_000);
      try {
        if (!(await page.getByTestId('operator').isVisible())) await signInAsAdmin(page);
        await open(page);
        const found = await checkPage(page, name);
        assert.deepEqual(found, [], `axe found serious or critical violations:\n${found.join('\n')}`);
      } finally {
        await page.emulateMedia({ colorScheme: 'light' });
        if (name === 'sign-in') await signInAsAdmin(page);
      }
    });
  }
});
