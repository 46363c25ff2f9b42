/**
 * A number the scripted model states without a tool result is named in a warning and highlighted.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 05-unverified-numbers -g "<part of a test name>"
 */
import assert from 'node:assert/strict';
import {
  test,
  ask,
  expectedNumbers,
  newThread,
  putModelSettings,
  settledAnswer,
  shot,
  signIn,
} from './support/fixtures.mjs';

test.describe.serial('unverified numbers', () => {
  test('7. a number the model states without a tool result is named in a warning and highlighted in the answer', async ({
    page,
    stack,
    model,
  }) => {
    test.setTimeout(180_000);
    // Scenario 6 ends as an operator; Settings needs the admin.
    await page.context().clearCookies();
    await signIn(page);
    await putModelSettings(page, { backend: 'openai', baseUrl: model.baseUrl, model: 'e2e-slow-model' });
    const question = 'How many findings relate to SQL injection?';
    // The corpus total: questions.json's, plus what scenario 5's import added.
    const total = await page.evaluate(() =>
      fetch('/api/findings?limit=0&text=SQL%20injection')
        .then((r) => r.json())
        .then((b) => b.total),
    );
    assert.ok(
      total >= expectedNumbers(question)[0],
      `the search total ${total} includes the shared corpus's`,
    );
    const invented = 'The exact total is 84 findings.';
    assert.notEqual(total, 84, 'the corpus total must differ from the invented number');
    // Step 1 searches; every later request (the answer, and the worker's one re-ask about the
    // unsupported number) answers with the same invented total.
    model.playSteps([
      model.script.toolCall('search_findings', { text: 'SQL injection' }),
      model.script.text(invented),
    ]);
    const requestsBefore = model.completionRequests.length;
    try {
      await page.goto(`${stack.baseUrl}/chat`);
      await newThread(page);
      await ask(page, question);
      await settledAnswer(page, 1, 90_000);
      const prose = await page.locator('cc-assistant-message').last().locator('cc-markdown').allInnerTexts();
      assert.equal(prose.join('').trim(), invented);
      assert.ok(
        model.completionRequests.length - requestsBefore >= 2,
        'the model was asked again after the tool result',
      );

      const checkAnswer = async () => {
        const message = page.locator('cc-assistant-message').last();
        const counts = await message.getByTestId('tool-count').allInnerTexts();
        assert.ok(
          counts.some((c) => new RegExp(`^\\d+ of ${total}$`).test(c.trim())),
          `the card shows the real total ${total}: ${counts}`,
        );
        const warning = message.getByTestId('unverified-warning');
        await warning.waitFor();
        assert.equal(await warning.getAttribute('role'), 'note');
        assert.equal(
          (await warning.locator('.message').innerText()).split('.')[0],
          'Not backed by a tool result: 84',
          'the warning names 84',
        );
        const marks = message.locator('[data-testid="answer"] mark.unverified');
        assert.deepEqual(await marks.allInnerTexts(), ['84']);
        assert.equal(
          await marks.first().getAttribute('title'),
          'No tool result of this turn supports this number',
        );
        // The card's own figures are never marked.
        assert.equal(await message.locator('cc-tool-card mark').count(), 0);
      };
      await checkAnswer();
      await shot(page, '7-unverified-number');

      // After a reload the stored answer carries the same check.
      await page.reload();
      await settledAnswer(page, 1);
      await checkAnswer();
      await shot(page, '7b-unverified-number-after-reload');
      await putModelSettings(page, { backend: 'builtin' });
    } finally {
      // Settings are put back only on success, so a failure's screenshot shows the answer.
      model.reset();
    }
  });
});
