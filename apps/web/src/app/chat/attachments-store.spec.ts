import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  CHAT_ATTACHMENT_MAX_BYTES,
  type ChatAttachmentView,
  type ImportJobView,
} from '@corpus-chat/contracts';
import { AttachmentsStore, formatSize } from './attachments-store';
import { ChatApi } from './chat-api';
import { ChatSocket } from './chat-socket';

const job = (
  id: string,
  file: string,
  status: ImportJobView['status'],
  extra: Partial<ImportJobView> = {},
): ImportJobView => ({
  id,
  file,
  sizeBytes: 2048,
  status,
  outcome: null,
  error: null,
  extraction: null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...extra,
});
const attachment = (id: string, j: ImportJobView): ChatAttachmentView => ({
  id,
  chatId: 'c1',
  createdAt: j.createdAt,
  import: j,
});
const fileOf = (name: string, size: number): File => {
  const f = new File(['x'], name);
  Object.defineProperty(f, 'size', { value: size });
  return f;
};

describe('AttachmentsStore', () => {
  let api: {
    listAttachments: ReturnType<typeof vi.fn>;
    attach: ReturnType<typeof vi.fn>;
    removeAttachment: ReturnType<typeof vi.fn>;
  };
  let importEvent: (job: ImportJobView) => void;
  let store: AttachmentsStore;

  beforeEach(() => {
    api = {
      listAttachments: vi.fn(() => Promise.resolve([])),
      attach: vi.fn(),
      removeAttachment: vi.fn(() => Promise.resolve()),
    };
    const socket = {
      connect: vi.fn(),
      onImportEvent: (h: (job: ImportJobView) => void) => {
        importEvent = h;
        return () => undefined;
      },
    };
    TestBed.configureTestingModule({
      providers: [
        AttachmentsStore,
        { provide: ChatApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
      ],
    });
    store = TestBed.inject(AttachmentsStore);
  });

  it("shows the thread's attachments with their import's state", async () => {
    const ready = job('i1', 'scan.xml', 'ready', {
      outcome: { ok: true, file: 'scan.xml', reportId: 7, format: 'burp', findingCount: 3 },
    });
    api.listAttachments.mockResolvedValue([
      attachment('a1', ready),
      attachment('a2', job('i2', 'junit.xml', 'failed', { error: 'unrecognised format: XML' })),
    ]);
    await store.open('c1');
    expect(api.listAttachments).toHaveBeenCalledWith('c1');
    expect(store.items().map((i) => [i.file, i.state, i.findingCount, i.error])).toEqual([
      ['scan.xml', 'ready', 3, null],
      ['junit.xml', 'failed', undefined, 'unrecognised format: XML'],
    ]);
  });

  it('follows an upload through queued and parsing to ready, even when an event overtakes the answer', async () => {
    await store.open('c1');
    let answer!: (a: ChatAttachmentView) => void;
    api.attach.mockReturnValue(new Promise<ChatAttachmentView>((resolve) => (answer = resolve)));
    const done = store.attach([fileOf('scan.json', 4096)]);
    expect(store.items().map((i) => [i.file, i.state])).toEqual([['scan.json', 'uploading']]);
    // The worker started before the upload's answer arrived.
    importEvent(job('i9', 'scan.json', 'parsing'));
    answer(attachment('a9', job('i9', 'scan.json', 'queued')));
    await done;
    expect(store.items().map((i) => [i.attachmentId, i.state])).toEqual([['a9', 'parsing']]);
    importEvent(
      job('i9', 'scan.json', 'ready', {
        outcome: { ok: true, file: 'scan.json', reportId: 3, format: 'trivy', findingCount: 185 },
      }),
    );
    expect(store.items()[0]).toMatchObject({ state: 'ready', findingCount: 185 });
    // Another import (another tab, the Reports page) leaves the chips alone.
    importEvent(job('other', 'x.sarif', 'failed'));
    expect(store.items()).toHaveLength(1);
  });

  it('counts a file imported before as ready: its questions go to that report', async () => {
    await store.open('c1');
    const dup = job('i3', 'again.xml', 'failed', {
      outcome: {
        ok: false,
        file: 'again.xml',
        code: 'DUPLICATE',
        error: 'already imported',
        existingReportId: 2,
      },
      error: 'already imported',
    });
    api.attach.mockResolvedValue(attachment('a3', job('i3', 'again.xml', 'queued')));
    await store.attach([fileOf('again.xml', 10)]);
    importEvent(dup);
    expect(store.items()[0]).toMatchObject({ state: 'ready', error: null });
  });

  it('refuses a file over the limit before sending it, naming its size and the limit', async () => {
    await store.open('c1');
    await store.attach([fileOf('huge.nessus', CHAT_ATTACHMENT_MAX_BYTES + 1)]);
    expect(api.attach).not.toHaveBeenCalled();
    expect(store.items()).toEqual([]);
    expect(store.refusal()).toContain('huge.nessus');
    expect(store.refusal()).toContain(`over the ${formatSize(CHAT_ATTACHMENT_MAX_BYTES)} limit`);
  });

  it("shows the server's refusal beside the composer and drops the chip", async () => {
    await store.open('c1');
    const message =
      'photo.png is not a report file Corpus Chat can import; nothing was attached. Supported formats: SARIF 2.1.0 and more.';
    api.attach.mockRejectedValue(new HttpErrorResponse({ status: 422, error: { statusCode: 422, message } }));
    await store.attach([fileOf('photo.png', 100)]);
    expect(store.items()).toEqual([]);
    expect(store.refusal()).toBe(`photo.png: ${message}`);
    store.dismissRefusal();
    expect(store.refusal()).toBeNull();
  });

  it('takes an attachment off the thread', async () => {
    api.listAttachments.mockResolvedValue([attachment('a1', job('i1', 'scan.xml', 'queued'))]);
    await store.open('c1');
    await store.remove(store.items()[0]);
    expect(api.removeAttachment).toHaveBeenCalledWith('c1', 'a1');
    expect(store.items()).toEqual([]);
  });
});
