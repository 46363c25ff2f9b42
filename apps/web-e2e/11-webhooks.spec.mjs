/**
 * Webhooks: an operator registers two endpoints under My account (the signing secret shown once),
 * asks a question answered by the built-in planner, and sees the deliveries listed: the one whose
 * receiver answers 200 as delivered (its signature verified with the `standardwebhooks` library),
 * the one whose receiver answers 500 as failed after its attempts; once that receiver is fixed,
 * Send again delivers it. The stack runs with short retries (`WEBHOOK_RETRY_DELAY_MS`, stack.mjs).
 *
 *   npx playwright test -c apps/web-e2e/playwright.config.mjs 11-webhooks
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { test, ask, expect, newThread, settledAnswer, shot, useBuiltinPlanner } from './support/fixtures.mjs';

/** A receiver on 127.0.0.1: `/ok` answers 200, `/down` 500 until `fix()`; records each request. */
async function startReceiver() {
  const received = [];
  let downFixed = false;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const status = req.url === '/ok' || downFixed ? 200 : 500;
      received.push({
        path: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        status,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    received,
    fix: () => (downFixed = true),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** Adds an endpoint on the account page for the default events; returns its secret as shown. */
async function addWebhook(page, url) {
  await page.getByLabel('Receiver URL').fill(url);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = await page.getByTestId('webhook-secret').getByRole('textbox').inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole('row').filter({ hasText: url }).first().waitFor();
  return secret;
}

/** The deliveries table's row for the endpoint `url`. */
const deliveryRow = (page, url) =>
  page.getByTestId('webhook-deliveries').getByRole('row').filter({ hasText: url });

/** Clicks Refresh until the delivery of `url` shows `status` (the list is read on demand). */
async function expectDelivery(page, url, status) {
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(deliveryRow(page, url)).toHaveAttribute('data-status', status, { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
}

test.describe.serial('webhooks', () => {
  let receiver;
  test.beforeAll(async () => {
    receiver = await startReceiver();
  });
  test.afterAll(async () => {
    await receiver?.close();
  });

  test('a finished turn is delivered, signed; a failed delivery is sent again once the receiver works', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await useBuiltinPlanner(page);

    await page.goto('/account');
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const okUrl = `${receiver.base}/ok`;
    const downUrl = `${receiver.base}/down`;
    const secret = await addWebhook(page, okUrl);
    await addWebhook(page, downUrl);
    await shot(page, '11-webhooks-registered');

    await page.goto('/chat');
    await newThread(page);
    await ask(page, 'How many critical findings are there?');
    await settledAnswer(page, 1, 90_000);
    const threadId = page.url().split('/').pop();

    await page.goto('/account');
    await expectDelivery(page, okUrl, 'delivered');
    await expectDelivery(page, downUrl, 'failed');
    await expect(deliveryRow(page, downUrl)).toContainText('HTTP 500');
    await shot(page, '11-webhooks-deliveries');

    const accepted = receiver.received.filter((r) => r.path === '/ok');
    assert.equal(accepted.length, 1);
    const payload = new Webhook(secret).verify(accepted[0].body, accepted[0].headers);
    assert.equal(payload.type, 'turn.done');
    assert.equal(payload.data.threadId, threadId);
    assert.ok(payload.data.text.length > 0, 'the delivery carries the answer');
    assert.equal(receiver.received.filter((r) => r.path === '/down').length, 3);

    receiver.fix();
    await deliveryRow(page, downUrl)
      .getByRole('button', { name: /^Send again/ })
      .click();
    await expectDelivery(page, downUrl, 'delivered');
    await expect(deliveryRow(page, downUrl)).toContainText('HTTP 200');
    await shot(page, '11-webhooks-resent');
  });
});
