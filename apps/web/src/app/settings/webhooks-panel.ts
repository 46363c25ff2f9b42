import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, type OnInit, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import {
  type CreatedWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookDeliveryStatus,
} from '@corpus-chat/contracts';
import { AuthStore } from '../auth/auth-store';
import { SecretOnce } from '../shared/secret-once';
import { WebhooksStore } from './webhooks-store';

const STATUS_LABELS: Record<WebhookDeliveryStatus, string> = {
  pending: $localize`:@@webhooks.statusPending:pending`,
  delivered: $localize`:@@webhooks.statusDelivered:delivered`,
  failed: $localize`:@@webhooks.statusFailed:failed`,
};

/** "Webhooks" on My account: register (secret shown once) and delete endpoints; see and resend deliveries. */
@Component({
  selector: 'cc-webhooks-panel',
  imports: [ReactiveFormsModule, DatePipe, SecretOnce],
  templateUrl: './webhooks-panel.html',
  styleUrls: ['../shared/account-panel.css', './webhooks-panel.css'],
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class WebhooksPanel implements OnInit {
  protected readonly store = inject(WebhooksStore);
  protected readonly auth = inject(AuthStore);
  protected readonly eventTypes = WEBHOOK_EVENT_TYPES;
  protected readonly statusLabels = STATUS_LABELS;
  protected readonly form = inject(NonNullableFormBuilder).group({
    url: ['', [Validators.required, Validators.maxLength(2000), Validators.pattern(/^https?:\/\/\S+$/i)]],
    'turn.done': [true],
    'turn.error': [true],
    'turn.cancelled': [false],
    allOperators: [false],
  });
  protected readonly busy = signal(false);
  protected readonly refreshing = signal(false);
  protected readonly created = signal<CreatedWebhookEndpoint | null>(null);
  protected readonly secretLabel = $localize`:@@webhooks.secret:Signing secret`;
  protected readonly message = signal<string | null>(null);

  ngOnInit(): void {
    void this.store.load();
  }

  protected async registerEndpoint(): Promise<void> {
    if (this.busy()) return;
    const value = this.form.getRawValue();
    const events = WEBHOOK_EVENT_TYPES.filter((t) => value[t]);
    if (this.form.controls.url.invalid || !events.length) {
      this.form.markAllAsTouched();
      this.message.set(
        this.form.controls.url.invalid
          ? $localize`:@@webhooks.urlNeeded:Enter the receiver's URL, e.g. https://hooks.example.org/corpus.`
          : $localize`:@@webhooks.eventNeeded:Choose at least one event.`,
      );
      return;
    }
    this.busy.set(true);
    this.message.set(null);
    const result = await this.store.create({
      url: value.url.trim(),
      events,
      ...(value.allOperators ? { allOperators: true } : {}),
    });
    this.busy.set(false);
    if (!result.ok) {
      this.message.set(result.message);
      return;
    }
    this.created.set(result.endpoint);
    this.form.reset();
  }

  protected async refreshDeliveries(): Promise<void> {
    this.refreshing.set(true);
    await this.store.load();
    this.refreshing.set(false);
  }

  protected async deleteEndpoint(id: string): Promise<void> {
    this.message.set(await this.store.remove(id));
    if (this.created()?.id === id) this.created.set(null);
  }

  protected async resendDelivery(id: string): Promise<void> {
    this.message.set(await this.store.resend(id));
  }

  protected deleteLabel(url: string): string {
    return $localize`:@@webhooks.deleteNamed:Delete the webhook ${url}:url:`;
  }

  protected resendLabel(title: string): string {
    return $localize`:@@webhooks.resendNamed:Send again the delivery for ${title}:title:`;
  }
}
