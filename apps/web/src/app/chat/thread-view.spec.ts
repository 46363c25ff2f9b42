import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ChatAttachmentView,
  type ChatDetailView,
  IMPORT_ACCEPT,
  type ImportJobView,
} from '@corpus-chat/contracts';
import { ChatApi } from './chat-api';
import { ChatListStore } from './chat-list-store';
import { ChatSocket } from './chat-socket';
import { ThreadView } from './thread-view';

const CHAT = '0b6f4c1e-5d2a-4c3e-9f00-1a2b3c4d5e6f';
const at = '2026-01-01T00:00:00.000Z';
const detail: ChatDetailView = {
  id: CHAT,
  title: 'Scans',
  archived: false,
  messageCount: 0,
  lastModel: null,
  activeTurn: null,
  unread: false,
  createdAt: at,
  updatedAt: at,
  messages: [],
};
const queued = (file: string, sizeBytes: number): ChatAttachmentView => ({
  id: 'att-1',
  chatId: CHAT,
  createdAt: at,
  import: {
    id: 'imp-1',
    file,
    sizeBytes,
    status: 'queued',
    outcome: null,
    error: null,
    extraction: null,
    createdAt: at,
    updatedAt: at,
  },
});

/** The socket as the thread view's stores use it; `importEvent` delivers an `import:event`. */
class FakeSocket {
  readonly state = signal('connected').asReadonly();
  importHandlers = new Set<(job: ImportJobView) => void>();
  connect = vi.fn();
  rejoin = vi.fn();
  onEvent = () => () => undefined;
  onThreadUpdated = () => () => undefined;
  onActivity = () => () => undefined;
  watch = () => () => undefined;
  onImportEvent(h: (job: ImportJobView) => void) {
    this.importHandlers.add(h);
    return () => this.importHandlers.delete(h);
  }
  importEvent(job: ImportJobView) {
    this.importHandlers.forEach((h) => h(job));
  }
}

describe('ThreadView attachments', () => {
  let api: Record<string, ReturnType<typeof vi.fn>>;
  let socket: FakeSocket;

  beforeEach(() => {
    api = {
      get: vi.fn(() => Promise.resolve(detail)),
      listAttachments: vi.fn(() => Promise.resolve([])),
      attach: vi.fn(),
      removeAttachment: vi.fn(() => Promise.resolve()),
    };
    socket = new FakeSocket();
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: ChatApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
        { provide: ChatListStore, useValue: { setViewing: () => undefined } },
      ],
    });
  });

  async function render() {
    const fixture = TestBed.createComponent(ThreadView);
    fixture.componentRef.setInput('chatId', CHAT);
    fixture.detectChanges();
    await fixture.whenStable();
    fixture.detectChanges();
    return { fixture, el: fixture.nativeElement as HTMLElement };
  }

  /** A file dragged onto the composer and dropped (the test DOM has no DataTransfer: a stand-in with the fields read). */
  const drop = (el: HTMLElement, file: File) => {
    const composer = el.querySelector('[data-testid="composer"]')!;
    for (const type of ['dragenter', 'drop']) {
      const event = new Event(type, { bubbles: true, cancelable: true });
      Object.defineProperty(event, 'dataTransfer', {
        value: { types: ['Files'], files: [file], dropEffect: 'none' },
      });
      composer.dispatchEvent(event);
    }
  };

  it('offers an attach button whose picker takes every extension the Reports page takes', async () => {
    const { el } = await render();
    const button = el.querySelector<HTMLButtonElement>('[data-testid="attach"]')!;
    expect(button.getAttribute('aria-label')).toBe('Attach a report file');
    expect(button.type).toBe('button');
    expect(el.querySelector('[data-testid="attach-input"]')!.getAttribute('accept')).toBe(IMPORT_ACCEPT);
    expect(button.title).toContain('Burp Suite XML');
  });

  it('shows a dropped file as a chip with its size, then its import progress from the socket', async () => {
    api['attach'].mockResolvedValue(queued('scan.nessus', 1_536_000));
    const { fixture, el } = await render();
    drop(el, new File(['<NessusClientData_v2/>'], 'scan.nessus'));
    await vi.waitFor(() =>
      expect(api['attach']).toHaveBeenCalledWith(CHAT, expect.objectContaining({ name: 'scan.nessus' })),
    );
    await fixture.whenStable();
    fixture.detectChanges();
    const chip = () => el.querySelector('[data-testid="attachment-chip"]')!;
    expect(chip().textContent).toContain('scan.nessus');
    expect(chip().textContent).toContain('1.5 MB');
    expect(chip().querySelector('[data-testid="attachment-status"]')!.textContent!.trim()).toBe('queued…');

    socket.importEvent({
      ...queued('scan.nessus', 1_536_000).import,
      status: 'ready',
      outcome: { ok: true, file: 'scan.nessus', reportId: 9, format: 'nessus', findingCount: 49 },
    });
    fixture.detectChanges();
    expect(chip().querySelector('[data-testid="attachment-status"]')!.textContent!.trim()).toBe(
      'ready: 49 findings',
    );
    expect(chip().querySelector('[data-testid="attachment-remove"]')!.getAttribute('aria-label')).toBe(
      'Remove scan.nessus',
    );
  });

  it("shows the server's refusal next to the composer", async () => {
    const message =
      'photo.png is not a report file Corpus Chat can import; nothing was attached. Supported formats: SARIF 2.1.0 and others.';
    api['attach'].mockRejectedValue(
      new HttpErrorResponse({ status: 422, error: { statusCode: 422, message } }),
    );
    const { fixture, el } = await render();
    drop(el, new File(['x'], 'photo.png'));
    await vi.waitFor(() => expect(api['attach']).toHaveBeenCalled());
    await fixture.whenStable();
    fixture.detectChanges();
    const refusal = el.querySelector('[data-testid="attach-refusal"]')!;
    expect(refusal.getAttribute('role')).toBe('alert');
    expect(refusal.textContent).toContain(`photo.png: ${message}`);
    expect(el.querySelector('[data-testid="attachment-chip"]')).toBeNull();
  });
});
