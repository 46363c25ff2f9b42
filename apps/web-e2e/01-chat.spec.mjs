/**
 * Chat: a counting question answered with the exact number and its search_findings card, a
 * follow-up that keeps the filter, a reload during a long streamed turn, and Stop. Scenarios 3 and 4
 * stream from the scripted model; 4 ends on the built-in planner, which later files expect.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 01-chat -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import {
  test,
  ask,
  digitsOf,
  expectedNumbers,
  liveText,
  newThread,
  putModelSettings,
  settledAnswer,
  shot,
  waitUntil,
} from './support/fixtures.mjs';

const SLOW_WORDS = (n) => Array.from({ length: n }, (_, i) => `word${i + 1}`);

test.describe.serial('chat', () => {
  test('1. a counting question is answered with the exact number and a search_findings card "N of TOTAL"', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const question = 'How many findings relate to SQL injection?';
    const [expected] = expectedNumbers(question);
    await newThread(page);
    await ask(page, question);
    // The question is on screen at once and the turn shows its state before the answer.
    await page.getByTestId('user-message').filter({ hasText: question }).waitFor();
    const answer = await settledAnswer(page, 1, 90_000);
    assert.ok(digitsOf(answer).includes(expected), `the answer states ${expected}: ${answer}`);
    const counts = await page.getByTestId('tool-count').allInnerTexts();
    assert.ok(
      counts.some((c) => new RegExp(`^\\d+ of ${expected}$`).test(c.trim())),
      `a search_findings card shows "N of ${expected}": ${counts}`,
    );
    // The thread got its title from the question and shows in the list.
    await page.getByTestId('thread-item').filter({ hasText: 'SQL injection' }).first().waitFor();
    await shot(page, '1-sql-injection-answer');

    // The card's link opens the Findings view with the same filter and the same exact total.
    await page.locator('cc-tool-card a.open').first().click();
    await page.waitForURL(/\/reports\/findings\?/);
    await waitUntil(
      async () => digitsOf(await page.getByTestId('findings-total').innerText())[0] === expected,
      {
        timeoutMs: 15_000,
        message: `the Findings view to show ${expected} findings`,
      },
    );
    await shot(page, '1b-findings-same-filter');
    await page.goBack();
    await settledAnswer(page, 1);
  });

  test('2. a follow-up question ("and how many of those are critical?") uses the previous filter', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const [expected] = expectedNumbers('How many critical findings relate to SQL injection?');
    await ask(page, 'and how many of those are critical?');
    const answer = await settledAnswer(page, 2, 90_000);
    assert.ok(digitsOf(answer).includes(expected), `the follow-up answer states ${expected}: ${answer}`);
    assert.equal(await page.getByTestId('user-message').count(), 2);
    await shot(page, '2-follow-up-critical');

    // The same thread on a narrow window (phone width): the list gives way to the thread.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, '2b-narrow-window');
    await page.setViewportSize({ width: 1360, height: 860 });
  });

  test('3. reloading during a long turn shows the text so far and continues live, without a duplicate bubble', async ({
    page,
    stack,
    model,
  }) => {
    test.setTimeout(180_000);
    await putModelSettings(page, {
      backend: 'openai',
      baseUrl: model.baseUrl,
      model: 'e2e-slow-model',
      testFirst: true,
    });
    const words = SLOW_WORDS(60);
    model.streamWords(words, 250);
    await page.goto(`${stack.baseUrl}/chat`);
    await newThread(page);
    const threadUrl = page.url();
    await ask(page, 'Tell me a slow story.');
    const before = await waitUntil(
      async () => {
        const t = await liveText(page);
        return t.split(/\s+/).length >= 8 ? t : null;
      },
      { timeoutMs: 60_000, message: 'eight streamed words' },
    );
    // While the turn runs: typing works, sending does not, Stop is offered.
    assert.equal(await page.getByTestId('send').isDisabled(), true);
    await page.getByLabel('Message').fill('typed while the turn runs');
    assert.equal(await page.getByLabel('Message').inputValue(), 'typed while the turn runs');
    await page.getByTestId('stop').waitFor();

    await page.reload();
    assert.equal(page.url(), threadUrl);
    // After the reload: the replayed text so far is there and keeps growing while the turn still runs.
    const continued = await waitUntil(
      async () => {
        const t = await liveText(page);
        return t.startsWith(before) && t.length > before.length ? t : null;
      },
      { timeoutMs: 20_000, message: 'the text so far to reappear and grow after the reload' },
    );
    assert.ok(continued.startsWith(before));
    await shot(page, '3a-after-reload-streaming');

    const final = await settledAnswer(page, 1, 60_000);
    assert.equal(final.replace(/\s+/g, ' ').trim(), words.join(' '));
    assert.equal(await page.locator('cc-assistant-message').count(), 1, 'one answer bubble');
    assert.equal(await page.getByTestId('user-message').count(), 1, 'one question bubble');
    await shot(page, '3b-after-reload-done');
  });

  test('4. stopping a running turn keeps the partial answer, marked stopped; the next question works', async ({
    page,
    model,
  }) => {
    test.setTimeout(180_000);
    const words = SLOW_WORDS(200);
    model.streamWords(words, 150);
    await newThread(page);
    const threadUrl = page.url();
    await ask(page, 'Tell me a very long story.');
    await waitUntil(async () => (await liveText(page)).split(/\s+/).length >= 5, {
      timeoutMs: 60_000,
      message: 'five streamed words',
    });
    const requestsBefore = model.completionRequests.length;
    await page.getByTestId('stop').click();
    await page.getByTestId('turn-stopped').waitFor({ timeout: 15_000 });
    const partial = (await settledAnswer(page, 1)).replace(/\s+/g, ' ').trim();
    assert.ok(partial.length > 0, 'the partial answer stays');
    assert.ok(
      words.join(' ').startsWith(partial) && partial.length < words.join(' ').length,
      `the partial answer is a prefix: ${partial}`,
    );
    // The model request was aborted (the HTTP connection to the model server closed).
    const last = model.completionRequests[requestsBefore - 1];
    await waitUntil(() => last?.closedAt !== undefined, {
      timeoutMs: 5_000,
      message: 'the model request to be closed',
    });
    assert.equal(last.clientClosed, true, 'the worker closed the model request');
    await shot(page, '4a-stopped');

    await putModelSettings(page, { backend: 'builtin' });
    await page.goto(threadUrl);
    const question = 'How many reports do we have?';
    const [expected] = expectedNumbers(question);
    await page.getByTestId('turn-stopped').waitFor();
    await ask(page, question);
    const answer = await settledAnswer(page, 2, 60_000);
    assert.ok(digitsOf(answer).includes(expected), `the next answer states ${expected}: ${answer}`);
    await shot(page, '4b-next-question-after-stop');
  });
});
