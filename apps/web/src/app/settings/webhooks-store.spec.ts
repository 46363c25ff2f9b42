import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type {
  CreatedWebhookEndpoint,
  WebhookDeliveryView,
  WebhookEndpointView,
} from '@corpus-chat/contracts';
import { csrfHeaderInterceptor } from '../http/csrf-header.interceptor';
import { WebhooksStore } from './webhooks-store';

const older: WebhookEndpointView = {
  id: 'e1',
  url: 'https://hooks.example.org/a',
  events: ['turn.done'],
  allOperators: false,
  createdAt: '2026-01-01T00:00:00Z',
};
const created: CreatedWebhookEndpoint = {
  id: 'e2',
  url: 'https://hooks.example.org/b',
  events: ['turn.done', 'turn.error'],
  allOperators: false,
  createdAt: '2026-02-01T00:00:00Z',
  secret: 'whsec_' + 'A'.repeat(44),
};
const failed: WebhookDeliveryView = {
  id: 'd1',
  endpointId: 'e1',
  url: older.url,
  eventType: 'turn.done',
  turnId: 't1',
  threadId: 'c1',
  threadTitle: 'SQL injection',
  status: 'failed',
  attempts: 10,
  lastStatusCode: 500,
  lastError: 'The receiver answered HTTP 500.',
  createdAt: '2026-02-02T00:00:00Z',
  updatedAt: '2026-02-02T01:30:00Z',
};

describe('WebhooksStore', () => {
  let http: HttpTestingController;
  let store: WebhooksStore;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(withInterceptors([csrfHeaderInterceptor])), provideHttpClientTesting()],
    });
    http = TestBed.inject(HttpTestingController);
    store = TestBed.inject(WebhooksStore);
  });

  it('lists endpoints and deliveries, adds a created endpoint without its secret, resends and deletes', async () => {
    const load = store.load();
    http.expectOne('/api/webhooks').flush([older]);
    http.expectOne('/api/webhooks/deliveries').flush([failed]);
    await load;
    expect(store.endpoints()).toEqual([older]);
    expect(store.deliveries()).toEqual([failed]);

    const create = store.create({ url: created.url, events: ['turn.done', 'turn.error'] });
    const post = http.expectOne({ method: 'POST', url: '/api/webhooks' });
    expect(post.request.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    post.flush(created);
    expect(await create).toEqual({ ok: true, endpoint: created });
    expect(store.endpoints().map((e) => e.id)).toEqual(['e2', 'e1']);
    expect(JSON.stringify(store.endpoints())).not.toContain(created.secret);

    const resend = store.resend('d1');
    http
      .expectOne({ method: 'POST', url: '/api/webhooks/deliveries/d1/resend' })
      .flush(null, { status: 202, statusText: 'Accepted' });
    expect(await resend).toBeNull();
    expect(store.deliveries()[0]!.status).toBe('pending');

    const remove = store.remove('e1');
    http
      .expectOne({ method: 'DELETE', url: '/api/webhooks/e1' })
      .flush(null, { status: 204, statusText: 'No Content' });
    expect(await remove).toBeNull();
    expect(store.endpoints().map((e) => e.id)).toEqual(['e2']);
    expect(store.deliveries()).toEqual([]);
  });

  it('answers the refusal message of a URL the API will not use', async () => {
    const message = 'The host 10.0.0.1 resolves to 10.0.0.1, a private or local address.';
    const create = store.create({ url: 'https://10.0.0.1/x', events: ['turn.done'] });
    http
      .expectOne({ method: 'POST', url: '/api/webhooks' })
      .flush({ statusCode: 422, message }, { status: 422, statusText: 'Unprocessable Entity' });
    const result = await create;
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain('private or local address');
    expect(store.endpoints()).toEqual([]);
  });
});
