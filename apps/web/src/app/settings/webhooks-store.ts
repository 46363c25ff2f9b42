import { HttpClient } from '@angular/common/http';
import { Injectable, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';
import type {
  CreatedWebhookEndpoint,
  CreateWebhookDto,
  WebhookDeliveryView,
  WebhookEndpointView,
} from '@corpus-chat/contracts';
import { describeHttpError, failureOf } from '../http/api-error';

/**
 * The signed-in operator's webhook endpoints and their recent deliveries (`/api/webhooks`). The
 * secret of a new endpoint lives only in what `create` returns: the API never answers it again.
 */
@Injectable({ providedIn: 'root' })
export class WebhooksStore {
  private readonly http = inject(HttpClient);
  private readonly endpointList = signal<WebhookEndpointView[]>([]);
  private readonly deliveryList = signal<WebhookDeliveryView[]>([]);
  private readonly failure = signal<string | null>(null);

  readonly endpoints = this.endpointList.asReadonly();
  /** Newest first. */
  readonly deliveries = this.deliveryList.asReadonly();
  /** Why the lists could not be loaded, or null. */
  readonly loadError = this.failure.asReadonly();

  async load(): Promise<void> {
    const failure = await failureOf(async () => {
      const [endpoints, deliveries] = await Promise.all([
        firstValueFrom(this.http.get<WebhookEndpointView[]>('/api/webhooks')),
        firstValueFrom(this.http.get<WebhookDeliveryView[]>('/api/webhooks/deliveries')),
      ]);
      this.endpointList.set(endpoints);
      this.deliveryList.set(deliveries);
    });
    this.failure.set(failure);
  }

  /** Registers an endpoint; the answer holds its secret, or a message saying why it was refused. */
  async create(
    body: CreateWebhookDto,
  ): Promise<{ ok: true; endpoint: CreatedWebhookEndpoint } | { ok: false; message: string }> {
    try {
      const endpoint = await firstValueFrom(this.http.post<CreatedWebhookEndpoint>('/api/webhooks', body));
      const { secret: _secret, ...view } = endpoint;
      this.endpointList.update((all) => [view, ...all]);
      return { ok: true, endpoint };
    } catch (err) {
      return { ok: false, message: describeHttpError(err) };
    }
  }

  /** Deletes endpoint `id` (and its deliveries); null on success, else a message. */
  remove(id: string): Promise<string | null> {
    return failureOf(async () => {
      await firstValueFrom(this.http.delete<void>(`/api/webhooks/${encodeURIComponent(id)}`));
      this.endpointList.update((all) => all.filter((e) => e.id !== id));
      this.deliveryList.update((all) => all.filter((d) => d.endpointId !== id));
    });
  }

  /** Sends failed delivery `id` again; null on success (it shows as pending), else a message. */
  resend(id: string): Promise<string | null> {
    return failureOf(async () => {
      await firstValueFrom(
        this.http.post<void>(`/api/webhooks/deliveries/${encodeURIComponent(id)}/resend`, {}),
      );
      this.deliveryList.update((all) =>
        all.map((d) => (d.id === id ? { ...d, status: 'pending' as const } : d)),
      );
    });
  }
}
