import {
  ChangeDetectionStrategy,
  Component,
  DOCUMENT,
  Injectable,
  InjectionToken,
  computed,
  effect,
  inject,
  signal,
} from '@angular/core';
import type { AssistantMessageMetadata, ChatMessageView } from '@corpus-chat/contracts';
import { readStored, writeStored } from '../shared/storage';
import { ChatSocket, type ConnectionState } from './chat-socket';
import { ThreadStore } from './thread-store';

/** localStorage key: whether the operator keeps the debug panel open (this browser only). */
export const DEBUG_PANEL_STORAGE_KEY = 'cc-debug-panel';

/** The clock elapsed times are measured with; replaced in tests. */
export const DEBUG_CLOCK = new InjectionToken<() => number>('DEBUG_CLOCK', {
  providedIn: 'root',
  factory: () => Date.now,
});

/** Whether the thread debug panel is open; closed until the operator opens it, then remembered. */
@Injectable({ providedIn: 'root' })
export class DebugPanelPreference {
  private readonly openSig = signal(readStored(DEBUG_PANEL_STORAGE_KEY) === '1');
  readonly open = this.openSig.asReadonly();

  toggle(): void {
    const open = !this.openSig();
    this.openSig.set(open);
    writeStored(DEBUG_PANEL_STORAGE_KEY, open ? '1' : null);
  }
}

/** What the debug panel shows, and exactly what "Copy as JSON" copies. */
export interface ThreadDebugSnapshot {
  threadId: string | null;
  turnId: string | null;
  turnStatus: string | null;
  connection: ConnectionState;
  transport: string | null;
  lastSeq: string | null;
  activeToolCalls: { callId: string; name: string; arguments: unknown; elapsedSeconds: number | null }[];
  lastError: { code: string; message: string } | null;
  model: string | null;
}

const metadataOf = (m: ChatMessageView): Partial<AssistantMessageMetadata> =>
  m.metadata as Partial<AssistantMessageMetadata>;

/**
 * The operator's view under the hood of a thread: ids, the live connection, the last event seq,
 * running tool calls, the last error and the model, from the client stores (no server call).
 */
@Component({
  selector: 'cc-thread-debug',
  templateUrl: './thread-debug.html',
  styleUrl: './thread-debug.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ThreadDebug {
  private readonly store = inject(ThreadStore);
  private readonly socket = inject(ChatSocket);
  private readonly clock = inject(DEBUG_CLOCK);
  private readonly document = inject(DOCUMENT);
  /** Ticks once a second while a tool call runs, so its elapsed time counts up. */
  private readonly now = signal(this.clock());

  protected readonly copyStatus = signal<'copied' | 'failed' | null>(null);

  readonly snapshot = computed((): ThreadDebugSnapshot => {
    const chat = this.store.chat();
    const live = this.store.live();
    const messages = chat?.messages ?? [];
    const lastAnswer = messages.findLast((m) => m.role === 'assistant') ?? null;
    const lastMessage = messages.at(-1) ?? null;
    const liveCurrent = live && live.turnId !== lastAnswer?.turnId ? live : null;
    const now = this.now();
    const storedError = lastAnswer ? metadataOf(lastAnswer).error : undefined;
    const socketError = this.socket.lastError();
    return {
      threadId: this.store.chatId(),
      turnId: liveCurrent?.turnId ?? lastMessage?.turnId ?? null,
      turnStatus: liveCurrent
        ? liveCurrent.phase
        : lastAnswer && lastAnswer.turnId === lastMessage?.turnId
          ? lastAnswer.status
          : null,
      connection: this.socket.state(),
      transport: this.socket.transport(),
      lastSeq: this.store.lastEvent()?.seq ?? null,
      activeToolCalls: (liveCurrent?.parts ?? []).flatMap((p) =>
        p.kind === 'tool' && p.call.state === 'running'
          ? [
              {
                callId: p.call.callId,
                name: p.call.name,
                arguments: p.call.args,
                elapsedSeconds: p.call.startedAt
                  ? Math.max(0, Math.floor((now - Date.parse(p.call.startedAt)) / 1000))
                  : null,
              },
            ]
          : [],
      ),
      lastError:
        liveCurrent?.error ??
        (storedError ? { code: storedError.code, message: storedError.message } : null) ??
        (socketError ? { code: 'CONNECTION', message: socketError } : null),
      model: (lastAnswer && metadataOf(lastAnswer).model) || chat?.lastModel || null,
    };
  });

  protected readonly json = computed(() => JSON.stringify(this.snapshot(), null, 2));
  protected readonly stringify = (value: unknown): string => JSON.stringify(value) ?? '';

  constructor() {
    effect((onCleanup) => {
      if (!this.store.live()?.parts.some((p) => p.kind === 'tool' && p.call.state === 'running')) return;
      this.now.set(this.clock());
      const timer = setInterval(() => this.now.set(this.clock()), 1000);
      onCleanup(() => clearInterval(timer));
    });
  }

  /** Copies the snapshot as shown; falls back to a hidden text area where the Clipboard API is missing or refused. */
  protected async copyJson(): Promise<void> {
    const text = this.json();
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      copied = this.copyWithTextArea(text);
    }
    this.copyStatus.set(copied ? 'copied' : 'failed');
  }

  private copyWithTextArea(text: string): boolean {
    const area = this.document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    this.document.body.appendChild(area);
    area.select();
    try {
      return this.document.execCommand('copy');
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}
