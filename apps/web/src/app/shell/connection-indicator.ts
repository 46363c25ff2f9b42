import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { ChatSocket } from '../chat/chat-socket';
import { labelOf } from '../i18n/labels';

function stateLabel(state: 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'offline'): string {
  return labelOf(state, state, {
    idle: $localize`:@@connection.idle:Not connected`,
    connecting: $localize`:@@connection.connecting:Connecting…`,
    connected: $localize`:@@connection.connected:Connected`,
    reconnecting: $localize`:@@connection.reconnecting:Reconnecting…`,
    offline: $localize`:@@connection.offline:Offline`,
  });
}

/** Live-updates status from the Socket.IO client's real state, with a retry when it gave up. */
@Component({
  selector: 'cc-connection-indicator',
  template: `
    <div
      class="indicator"
      [class]="'indicator ' + state()"
      role="status"
      data-testid="connection"
      [attr.data-state]="state()"
    >
      <span class="dot" aria-hidden="true"></span>
      <span class="label">{{ label() }}</span>
      @if (state() === 'offline') {
        <button type="button" class="ghost small" (click)="socket.reconnect()" i18n="@@connection.retry">
          Retry
        </button>
      }
    </div>
  `,
  styles: `
    .indicator {
      display: flex;
      align-items: center;
      gap: 0.45rem;
      font-size: 0.8rem;
      color: #c9d3e0;
    }
    .dot {
      width: 0.55rem;
      height: 0.55rem;
      border-radius: 50%;
      background: #7b8797;
      flex: none;
    }
    .connected .dot {
      background: #3ecf8e;
      box-shadow: 0 0 0 3px rgb(62 207 142 / 20%);
    }
    .connecting .dot,
    .reconnecting .dot {
      background: #f5b83d;
    }
    .offline .dot {
      background: #f06a60;
    }
    button {
      color: #fff;
      min-height: 1.6rem;
      padding: 0 0.45rem;
    }
    button:hover:not(:disabled) {
      background: rgb(255 255 255 / 10%);
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ConnectionIndicator {
  protected readonly socket = inject(ChatSocket);
  protected readonly state = this.socket.state;
  protected readonly label = computed(() => {
    const error = this.socket.lastError();
    const state = this.state();
    return state === 'offline' && error
      ? $localize`:@@connection.offlineBecause:Offline (${error}:reason:)`
      : stateLabel(state);
  });
}
