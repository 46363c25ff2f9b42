import { DestroyRef, Injectable, computed, inject, signal } from '@angular/core';
import {
  CHAT_ATTACHMENT_MAX_BYTES,
  type ChatAttachmentView,
  type ImportJobStatus,
  type ImportJobView,
} from '@corpus-chat/contracts';
import { describeHttpError } from '../http/api-error';
import { ChatApi } from './chat-api';
import { ChatSocket } from './chat-socket';

/** A file on the thread's composer: uploading, then its import's status as the worker reports it. */
export interface AttachmentItem {
  /** Stable for the item's life (the attachment id once the server answered). */
  key: string;
  file: string;
  sizeBytes: number;
  state: 'uploading' | ImportJobStatus;
  attachmentId?: string;
  importId?: string;
  /** Findings stored, once ready. */
  findingCount?: number;
  /** Why the import failed or was cancelled. */
  error?: string | null;
}

/** "2.4 MB", "980 KB", "512 bytes". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return $localize`:@@chat.attach.sizeBytes:${bytes}:count: bytes`;
  if (bytes < 1024 * 1024) return $localize`:@@chat.attach.sizeKb:${Math.round(bytes / 1024)}:size: KB`;
  return $localize`:@@chat.attach.sizeMb:${(bytes / (1024 * 1024)).toFixed(1)}:size: MB`;
}

function itemOf(a: ChatAttachmentView): AttachmentItem {
  return {
    key: a.id,
    file: a.import.file,
    sizeBytes: a.import.sizeBytes,
    attachmentId: a.id,
    ...importState(a.import),
  };
}

function importState(
  job: ImportJobView,
): Pick<AttachmentItem, 'state' | 'importId' | 'findingCount' | 'error'> {
  const outcome = job.outcome;
  // A file imported before is as good as imported: its questions go to that report.
  if (outcome && !outcome.ok && outcome.code === 'DUPLICATE')
    return { state: 'ready', importId: job.id, error: null };
  return {
    state: job.status,
    importId: job.id,
    findingCount: outcome?.ok ? outcome.findingCount : undefined,
    error: job.error,
  };
}

/**
 * The files attached to one thread, with their imports' live progress from the socket's
 * `import:event`, and the last refusal (too large, not a report file) to show beside the composer.
 */
@Injectable()
export class AttachmentsStore {
  private readonly api = inject(ChatApi);
  private readonly socket = inject(ChatSocket);
  private readonly state = signal<{ chatId: string | null; items: AttachmentItem[]; refusal: string | null }>(
    { chatId: null, items: [], refusal: null },
  );
  private uploads = 0;
  /** Status changes of imports not (yet) on the composer, by import id. */
  private readonly early = new Map<string, ImportJobView>();

  readonly items = computed(() => this.state().items);
  readonly refusal = computed(() => this.state().refusal);

  constructor() {
    const off = this.socket.onImportEvent((job) => this.applyImportEvent(job));
    inject(DestroyRef).onDestroy(off);
  }

  /** Shows thread `chatId`'s attachments (an unreadable list shows none: the thread view reports the error). */
  async open(chatId: string): Promise<void> {
    this.state.set({ chatId, items: [], refusal: null });
    try {
      const list = await this.api.listAttachments(chatId);
      if (this.state().chatId === chatId)
        this.state.update((s) => ({
          ...s,
          items: [...s.items.filter((i) => i.state === 'uploading'), ...list.map(itemOf)],
        }));
    } catch {
      // The thread itself failing to load says why.
    }
  }

  /** Uploads each file (one request each); a file over the limit is refused before it is sent. */
  async attach(files: readonly File[]): Promise<void> {
    const chatId = this.state().chatId;
    if (!chatId || !files.length) return;
    this.socket.connect();
    this.state.update((s) => ({ ...s, refusal: null }));
    for (const file of files) {
      if (file.size > CHAT_ATTACHMENT_MAX_BYTES) {
        this.refuse(
          $localize`:@@chat.attach.tooLarge:${file.name}:file: is ${formatSize(file.size)}:size:, over the ${formatSize(CHAT_ATTACHMENT_MAX_BYTES)}:limit: limit of chat attachments. Import larger reports on the Reports page.`,
        );
        continue;
      }
      const key = `upload-${++this.uploads}`;
      this.state.update((s) => ({
        ...s,
        items: [...s.items, { key, file: file.name, sizeBytes: file.size, state: 'uploading' }],
      }));
      try {
        const attached = await this.api.attach(chatId, file);
        this.replace(key, itemOf(attached));
      } catch (err) {
        this.state.update((s) => ({ ...s, items: s.items.filter((i) => i.key !== key) }));
        this.refuse(`${file.name}: ${describeHttpError(err)}`);
      }
    }
  }

  /** Takes the attachment off the thread (its import stops if it still runs). */
  async remove(item: AttachmentItem): Promise<void> {
    const chatId = this.state().chatId;
    if (!chatId || !item.attachmentId) return;
    try {
      await this.api.removeAttachment(chatId, item.attachmentId);
      this.state.update((s) => ({ ...s, items: s.items.filter((i) => i.key !== item.key) }));
    } catch (err) {
      this.refuse(`${item.file}: ${describeHttpError(err)}`);
    }
  }

  dismissRefusal(): void {
    this.state.update((s) => ({ ...s, refusal: null }));
  }

  private refuse(text: string): void {
    this.state.update((s) => ({ ...s, refusal: text }));
  }

  private replace(key: string, next: AttachmentItem): void {
    // A status change that overtook the upload's answer is newer than the answer.
    const early = next.importId ? this.early.get(next.importId) : undefined;
    if (early) this.early.delete(early.id);
    const item = early ? { ...next, ...importState(early) } : next;
    this.state.update((s) => ({ ...s, items: s.items.map((i) => (i.key === key ? item : i)) }));
  }

  private applyImportEvent(job: ImportJobView): void {
    if (!this.state().items.some((i) => i.importId === job.id)) {
      // Possibly this tab's upload whose answer is still on its way; other imports pass by.
      this.early.set(job.id, job);
      if (this.early.size > 50) this.early.delete(this.early.keys().next().value!);
      return;
    }
    this.state.update((s) => ({
      ...s,
      items: s.items.map((i) => (i.importId === job.id ? { ...i, ...importState(job) } : i)),
    }));
  }
}
