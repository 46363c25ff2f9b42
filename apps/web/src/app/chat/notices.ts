import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { RouterLink } from '@angular/router';
import { DismissButton } from '../shared/dismiss-button';
import { DisplayTextPipe } from '../shared/display-text';
import { NoticesStore, noticeText } from './notices-store';

/**
 * The toasts of turns that ended in threads not on screen, announced politely to screen readers;
 * top right, clear of the composer.
 */
@Component({
  selector: 'cc-notices',
  imports: [DismissButton, DisplayTextPipe, RouterLink],
  template: `
    <div class="notices" role="status" aria-live="polite" aria-atomic="false">
      @for (notice of store.notices(); track notice.turnId) {
        <div class="toast" [class]="notice.outcome" data-testid="turn-notice">
          <a [routerLink]="['/chat', notice.chatId]" data-testid="turn-notice-link">{{
            notice.title | displayText
          }}</a>
          <p>{{ text(notice) | displayText }}</p>
          <button ccDismiss class="close" (click)="store.dismiss(notice.turnId)">×</button>
        </div>
      }
    </div>
  `,
  styles: `
    .notices {
      position: fixed;
      right: 16px;
      top: 76px;
      z-index: 50;
      display: grid;
      gap: 8px;
      max-width: min(360px, calc(100vw - 32px));
    }
    .toast {
      position: relative;
      display: grid;
      gap: 2px;
      padding: 10px 32px 10px 12px;
      border-radius: 8px;
      border: 1px solid var(--border);
      border-left: 4px solid var(--accent);
      background: var(--surface, #fff);
      box-shadow: 0 4px 16px rgb(0 0 0 / 0.15);
    }
    .toast.error {
      border-left-color: var(--danger, #c62828);
    }
    .toast.cancelled {
      border-left-color: var(--muted);
    }
    a {
      font-weight: 650;
    }
    p {
      margin: 0;
      font-size: 0.85rem;
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
    }
    .close {
      position: absolute;
      top: 4px;
      right: 4px;
      border: none;
      background: none;
      font-size: 1.1rem;
      cursor: pointer;
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class Notices {
  protected readonly store = inject(NoticesStore);
  protected readonly text = noticeText;
}
