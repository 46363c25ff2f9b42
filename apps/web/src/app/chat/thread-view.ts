import {
  ChangeDetectionStrategy,
  DestroyRef,
  Component,
  ElementRef,
  LOCALE_ID,
  afterRenderEffect,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { Router, RouterLink } from '@angular/router';
import { CHAT_ATTACHMENT_MAX_BYTES, IMPORT_ACCEPT } from '@corpus-chat/contracts';
import { failureOf } from '../http/api-error';
import { AnswerFeedback } from './answer-feedback';
import { AssistantMessage } from './assistant-message';
import { AttachmentsStore, formatSize } from './attachments-store';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { ConfirmDialog } from './confirm-dialog';
import { loadDraft, saveDraft } from './drafts';
import { DebugPanelPreference, ThreadDebug } from './thread-debug';
import { ThreadStore } from './thread-store';
import { DismissButton } from '../shared/dismiss-button';
import { DisplayTextPipe } from '../shared/display-text';
import { FileDrop } from '../shared/file-drop';
import { UNTITLED_THREAD } from './thread-labels';
import { importFormatsLabel } from '../i18n/labels';

/** Questions offered in an empty thread, in the interface's language (the planner reads both). */
const SUGGESTIONS: readonly string[] = [
  $localize`:@@thread.suggestSql:How many findings relate to SQL injection?`,
  $localize`:@@thread.suggestCritical:Which report has the most critical findings?`,
  $localize`:@@thread.suggestBreakdown:Give me a breakdown of all findings by severity.`,
];

/** `/chat/:chatId`: the conversation, the running turn and the composer. */
@Component({
  selector: 'cc-thread-view',
  imports: [
    AnswerFeedback,
    AssistantMessage,
    ConfirmDialog,
    DatePipe,
    DecimalPipe,
    DismissButton,
    DisplayTextPipe,
    FileDrop,
    RouterLink,
    ThreadDebug,
  ],
  providers: [ThreadStore, AttachmentsStore],
  templateUrl: './thread-view.html',
  styleUrl: './thread-view.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ThreadView {
  protected readonly store = inject(ThreadStore);
  protected readonly attachments = inject(AttachmentsStore);
  /** The file picker takes what the Reports page's does. */
  protected readonly accept = IMPORT_ACCEPT;
  protected readonly attachTitle = $localize`:@@chat.attach.title:Attach a report file (up to ${formatSize(CHAT_ATTACHMENT_MAX_BYTES)}:limit:): ${importFormatsLabel(inject(LOCALE_ID))}:formats:. Questions about "this file" are then answered from it.`;
  protected readonly size = formatSize;
  private readonly list = inject(ChatListStore);
  private readonly router = inject(Router);
  private readonly socket = inject(ChatSocket);
  protected readonly debugPanel = inject(DebugPanelPreference);

  /** Route parameter. */
  readonly chatId = input.required<string>();

  protected readonly draft = signal('');
  protected readonly renaming = signal(false);
  protected readonly titleDraft = signal('');
  protected readonly actionError = signal<string | null>(null);
  protected readonly connection = this.socket.state;
  protected readonly canSubmit = computed(() => this.store.canSend() && this.draft().trim().length > 0);
  protected readonly untitled = UNTITLED_THREAD;
  protected readonly suggestions = SUGGESTIONS;
  protected readonly deleteMessage = computed(() => {
    const title = this.store.chat()?.title || UNTITLED_THREAD;
    return $localize`:@@thread.deleteMessage:“${title}:title:” and all its messages will be deleted. A running turn is stopped first.`;
  });

  private readonly scroller = viewChild<ElementRef<HTMLElement>>('scroller');
  private readonly composer = viewChild<ElementRef<HTMLTextAreaElement>>('composer');
  private readonly titleInput = viewChild<ElementRef<HTMLInputElement>>('titleInput');
  private stickToBottom = true;

  constructor() {
    effect(() => {
      const id = this.chatId();
      untracked(() => {
        this.draft.set(loadDraft(id));
        this.renaming.set(false);
        this.actionError.set(null);
        this.stickToBottom = true;
        void this.store.open(id);
        void this.attachments.open(id);
        this.list.setViewing(id);
      });
    });
    inject(DestroyRef).onDestroy(() => this.list.setViewing(null));
    // Follow the conversation while the operator is at the bottom; leave them alone when they scrolled up.
    afterRenderEffect(() => {
      this.store.entries();
      const el = this.scroller()?.nativeElement;
      if (el && this.stickToBottom) el.scrollTop = el.scrollHeight;
    });
    afterRenderEffect(() => {
      if (this.renaming()) this.titleInput()?.nativeElement.focus();
    });
  }

  protected trackScroll(el: HTMLElement): void {
    this.stickToBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  }

  /** Enter sends, Shift+Enter (or an IME composition) adds a line. */
  protected handleComposerKey(event: KeyboardEvent): void {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    void this.sendMessage();
  }

  protected async sendMessage(): Promise<void> {
    if (!this.canSubmit()) return;
    this.stickToBottom = true;
    if (await this.store.send(this.draft())) this.editDraft('');
    this.focusComposer();
  }

  /** Keeps what is typed, per thread, so a reload or an expired session does not lose it. */
  protected editDraft(text: string): void {
    this.draft.set(text);
    saveDraft(this.chatId(), text);
  }

  /** Puts the keyboard in the composer (after New thread, a suggestion, a send). */
  focusComposer(): void {
    this.composer()?.nativeElement.focus();
  }

  protected useSuggestion(text: string): void {
    this.editDraft(text);
    this.focusComposer();
  }

  protected attachPicked(input: HTMLInputElement): void {
    const files = Array.from(input.files ?? []);
    input.value = '';
    void this.attachments.attach(files);
    this.focusComposer();
  }

  protected attachDropped(files: File[]): void {
    void this.attachments.attach(files);
    this.focusComposer();
  }

  protected removeLabel(file: string): string {
    return $localize`:@@chat.attach.remove:Remove ${file}:file:`;
  }

  protected stopTurn(): void {
    void this.store.stop();
  }

  protected retryTurn(turnId: string): void {
    this.stickToBottom = true;
    void this.store.retry(turnId);
  }

  protected startRename(): void {
    this.titleDraft.set(this.store.chat()?.title ?? '');
    this.renaming.set(true);
  }

  protected async saveTitle(): Promise<void> {
    const title = this.titleDraft().trim();
    const chat = this.store.chat();
    this.renaming.set(false);
    if (chat && title && title !== chat.title) await this.act(() => this.list.update(chat.id, { title }));
  }

  protected handleTitleKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.renaming.set(false);
    }
  }

  protected async toggleArchived(): Promise<void> {
    const chat = this.store.chat();
    if (chat) await this.act(() => this.list.update(chat.id, { archived: !chat.archived }));
  }

  protected async deleteThread(): Promise<void> {
    const chat = this.store.chat();
    if (chat)
      await this.act(
        () => this.list.remove(chat.id),
        () => this.router.navigate(['/chat']),
      );
  }

  /**
   * Runs a header action, then `after` (by default re-reads the thread); a failure shows as a banner
   * until the next action succeeds.
   */
  private async act(action: () => Promise<unknown>, after = (): Promise<unknown> => this.store.refresh()) {
    const failure = await failureOf(async () => {
      await action();
      await after();
    });
    this.actionError.set(failure);
  }
}
