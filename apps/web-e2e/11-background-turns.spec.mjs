/**
 * Background turns: a turn runs in thread A while the operator works in thread B. While A waits
 * behind other turns the Running panel shows its place and elapsed time; Stop in the panel ends B
 * and closes its model request; when A lands, A is unread, the title counts it and a notice links
 * to it, on a second page of the same operator too; opening A clears all of it.
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 11-background-turns
 */
import assert from 'node:assert/strict';
import { test, ask, newThread, putModelSettings, shot, signIn, waitUntil } from './support/fixtures.mjs';

const CSRF = { 'X-Requested-With': 'XMLHttpRequest' };
const words = (n) => Array.from({ length: n }, (_, i) => ({ text: `${i ? ' ' : ''}word` }));
/** A stream that outlasts the scenario (its turns are stopped). */
const SLOW = { kind: 'stream', chunkDelayMs: 500, chunks: [...words(400), { finish: 'stop' }] };
const ANSWER_A = {
  kind: 'stream',
  chunkDelayMs: 100,
  chunks: [{ text: 'Thread A answer is ready.' }, { text: '\nMore detail follows.' }, { finish: 'stop' }],
};

test.describe.serial('background turns', () => {
  test('Running panel, Stop there, then the unread mark, title count and notice of a turn that landed elsewhere', async ({
    page,
    model,
    stack,
    browser,
    playwright,
  }) => {
    test.setTimeout(240_000);
    const api = (path) => new URL(path, stack.baseUrl).toString();
    const rowOf = (p, chatId) => p.locator(`[data-testid="running-turn"][data-chat-id="${chatId}"]`);
    const itemOf = (p, chatId) => p.locator(`[data-testid="thread-item"][href="/chat/${chatId}"]`);
    const idOf = (url) => url.split('/').pop();

    // Earlier scenarios may have left answers unseen: start from none, so the title counts only A.
    for (const t of await (await page.request.get(api('/api/chats'))).json())
      if (t.unread) await page.request.post(api(`/api/chats/${t.id}/seen`), { headers: CSRF });
    await putModelSettings(page, { backend: 'openai', baseUrl: model.baseUrl, model: 'e2e-slow-model' });
    // Four slow turns fill the worker's four slots; the fifth request (A's) answers at once.
    model.playSteps([SLOW, SLOW, SLOW, SLOW, ANSWER_A, SLOW]);

    // A second page of the same operator.
    const other = await browser.newContext({
      baseURL: stack.baseUrl,
      viewport: { width: 1360, height: 860 },
    });
    const page2 = await other.newPage();
    await signIn(page2, stack.adminUser, stack.adminPassword);

    // Another operator's three turns (their limit) keep three slots busy.
    const bobName = `bob${Date.now()}`;
    const password = 'background-turns-password';
    const created = await page.request.post(api('/api/operators'), {
      data: { username: bobName, displayName: 'Bob', password, role: 'operator' },
      headers: CSRF,
    });
    assert.equal(created.status(), 201, await created.text());
    const bob = await playwright.request.newContext({ baseURL: stack.baseUrl, extraHTTPHeaders: CSRF });
    assert.equal((await bob.post('/api/auth/login', { data: { username: bobName, password } })).ok(), true);
    const bobTurns = [];
    for (let i = 0; i < 3; i++) {
      const chat = await (await bob.post('/api/chats', { data: {} })).json();
      const posted = await bob.post(`/api/chats/${chat.id}/messages`, { data: { content: `Bob asks ${i}` } });
      assert.equal(posted.status(), 202, await posted.text());
      bobTurns.push({ chatId: chat.id, ...(await posted.json()) });
    }

    try {
      await page.goto('/chat');
      await newThread(page);
      const threadB = idOf(page.url());
      await ask(page, 'Question in thread B');
      await rowOf(page, threadB).getByText('Running', { exact: true }).waitFor({ timeout: 30_000 });
      await newThread(page);
      const threadA = idOf(page.url());
      await ask(page, 'Question in thread A');

      // The operator works in B while A waits behind the others.
      await itemOf(page, threadB).click();
      await page.waitForURL(new RegExp(`/chat/${threadB}$`));
      const rowA = rowOf(page, threadA);
      await rowA
        .getByTestId('running-place')
        .filter({ hasText: 'Queued, place 1' })
        .waitFor({ timeout: 30_000 });
      const elapsed = rowA.getByTestId('running-elapsed');
      const first = await elapsed.innerText();
      assert.match(first, /^\d+:\d{2} elapsed$/);
      await waitUntil(async () => (await elapsed.innerText()) !== first, {
        timeoutMs: 5_000,
        message: 'the elapsed time to count on',
      });
      await shot(page, '11a-running-panel');

      // Stop in the Running panel ends B and closes its model request, as Stop in the thread does.
      const requestB = model.completionRequests.find((r) =>
        JSON.stringify(r.body?.messages ?? '').includes('Question in thread B'),
      );
      assert.ok(requestB, 'B asked the model');
      await rowOf(page, threadB).getByTestId('running-stop').click();
      await rowOf(page, threadB).waitFor({ state: 'detached', timeout: 15_000 });
      await page.getByTestId('turn-stopped').waitFor({ timeout: 15_000 });
      await waitUntil(() => requestB.closedAt !== undefined, {
        timeoutMs: 10_000,
        message: "B's model request to be closed",
      });
      assert.equal(requestB.clientClosed, true, 'the worker closed the model request');

      // A gets the freed slot and lands while the operator is still in B.
      await rowA.waitFor({ state: 'detached', timeout: 60_000 });
      await itemOf(page, threadA).getByTestId('thread-unread').waitFor({ timeout: 15_000 });
      await waitUntil(async () => (await page.title()).startsWith('(1) '), {
        timeoutMs: 10_000,
        message: 'the title to count one unread thread',
      });
      const notice = page.getByTestId('turn-notice').filter({ hasText: 'Thread A answer is ready.' });
      await notice.waitFor({ timeout: 10_000 });
      const link = notice.getByTestId('turn-notice-link');
      assert.equal(await link.innerText(), 'Question in thread A');
      assert.equal(await link.getAttribute('href'), `/chat/${threadA}`);
      assert.equal(
        await page.getByRole('status').filter({ has: notice }).getAttribute('aria-live'),
        'polite',
      );
      // The second page sees the mark too.
      await itemOf(page2, threadA).getByTestId('thread-unread').waitFor({ timeout: 15_000 });
      await shot(page, '11b-unread-and-notice');

      // Opening A from the notice clears the mark, the count and the notice, on both pages.
      await link.click();
      await page.waitForURL(new RegExp(`/chat/${threadA}$`));
      await itemOf(page, threadA)
        .getByTestId('thread-unread')
        .waitFor({ state: 'detached', timeout: 10_000 });
      await notice.waitFor({ state: 'detached' });
      await waitUntil(async () => !(await page.title()).startsWith('('), {
        timeoutMs: 10_000,
        message: 'the title to lose its count',
      });
      await itemOf(page2, threadA)
        .getByTestId('thread-unread')
        .waitFor({ state: 'detached', timeout: 15_000 });
    } finally {
      for (const t of bobTurns) await bob.post(`/api/chats/${t.chatId}/turns/${t.turnId}/cancel`);
      await bob.dispose();
      await other.close();
      model.reset();
      await putModelSettings(page, { backend: 'builtin' });
    }
  });
});
