import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportJobView, ReportSummary } from '@corpus-chat/contracts';
import { ChatSocket } from '../chat/chat-socket';
import { ReportsApi } from './reports-api';
import { IMPORT_ACCEPT, ReportsStore } from './reports-store';

const report = (id: number, filename: string, archived = false): ReportSummary => ({
  id,
  filename,
  model: null,
  format: 'sarif',
  status: 'ready',
  findingCount: 3,
  bySeverity: { critical: 0, high: 3, medium: 0, low: 0, info: 0 },
  archived,
  error: null,
  docMetadata: {},
  createdAt: `2026-01-0${id}T00:00:00Z`,
});

describe('ReportsStore archive / unarchive', () => {
  /** The server's reports: archived ones are listed only when asked for. */
  let rows: ReportSummary[];
  let api: {
    listReports: ReturnType<typeof vi.fn>;
    overview: ReturnType<typeof vi.fn>;
    setArchived: ReturnType<typeof vi.fn>;
  };
  let store: ReportsStore;

  beforeEach(() => {
    rows = [report(1, 'a.sarif'), report(2, 'b.sarif', true)];
    api = {
      listReports: vi.fn((includeArchived: boolean) =>
        Promise.resolve(rows.filter((r) => includeArchived || !r.archived)),
      ),
      overview: vi.fn(() => Promise.resolve(null)),
      setArchived: vi.fn((id: number, archived: boolean) => {
        const r = rows.find((x) => x.id === id)!;
        if (
          !archived &&
          r.filename === 'b.sarif' &&
          rows.some((x) => x.id !== id && !x.archived && x.filename === 'b.sarif')
        ) {
          return Promise.reject(
            new HttpErrorResponse({
              status: 409,
              error: { statusCode: 409, message: 'an identical report is active (report 3)' },
            }),
          );
        }
        r.archived = archived;
        return Promise.resolve(r);
      }),
    };
    TestBed.configureTestingModule({ providers: [ReportsStore, { provide: ReportsApi, useValue: api }] });
    store = TestBed.inject(ReportsStore);
  });

  it('hides archived reports until "show archived", then lists them', async () => {
    await store.load();
    expect(store.reports().map((r) => r.filename)).toEqual(['a.sarif']);
    await store.setShowArchived(true);
    expect(api.listReports).toHaveBeenLastCalledWith(true);
    expect(store.reports().map((r) => [r.filename, r.archived])).toEqual([
      ['b.sarif', true],
      ['a.sarif', false],
    ]);
  });

  it('archives a report (it leaves the list), says so, and undo restores it', async () => {
    await store.load();
    await store.setArchived(store.reports()[0]!, true);
    expect(api.setArchived).toHaveBeenCalledWith(1, true);
    expect(store.reports()).toEqual([]);
    expect(store.archiveNotice()).toMatchObject({
      ok: true,
      text: 'Archived a.sarif: its findings no longer count.',
    });
    await store.undoArchive();
    expect(api.setArchived).toHaveBeenLastCalledWith(1, false);
    expect(store.reports().map((r) => r.filename)).toEqual(['a.sarif']);
    expect(store.archiveNotice()?.text).toBe('Restored a.sarif: its findings count again.');
  });

  it("shows the API's reason when a report cannot be restored", async () => {
    rows.push(report(3, 'b.sarif'));
    await store.setShowArchived(true);
    await store.setArchived({ id: 2, filename: 'b.sarif' }, false);
    expect(store.archiveNotice()).toEqual({
      ok: false,
      text: 'b.sarif: an identical report is active (report 3)',
    });
    expect(store.reports().find((r) => r.id === 2)?.archived).toBe(true);
    expect(store.isBusy(2)).toBe(false);
  });
});

describe('ReportsStore imports', () => {
  const view = (
    id: string,
    file: string,
    status: ImportJobView['status'],
    extra: Partial<ImportJobView> = {},
  ): ImportJobView => ({
    id,
    file,
    extraction: null,
    sizeBytes: 10,
    status,
    outcome: null,
    error: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...extra,
  });
  let emit: (job: ImportJobView) => void;
  let api: Record<string, ReturnType<typeof vi.fn>>;
  let store: ReportsStore;

  beforeEach(() => {
    api = {
      listReports: vi.fn(() => Promise.resolve([])),
      overview: vi.fn(() => Promise.resolve(null)),
      queueImports: vi.fn((files: File[]) =>
        files[0]!.name === 'huge.json'
          ? Promise.reject(
              new HttpErrorResponse({
                status: 413,
                error: {
                  statusCode: 413,
                  message: 'A file is over the 50 MB import limit; nothing was imported.',
                },
              }),
            )
          : Promise.resolve([view(`id-${files[0]!.name}`, files[0]!.name, 'queued')]),
      ),
      cancelImport: vi.fn((id: string) =>
        Promise.resolve(view(id, 'b.xml', 'cancelled', { error: 'cancelled by the operator' })),
      ),
      setArchived: vi.fn((id: number, archived: boolean) =>
        Promise.resolve({ ...report(id, 'a.sarif'), archived }),
      ),
    };
    const socket = {
      connect: vi.fn(),
      onImportEvent: (h: (job: ImportJobView) => void) => ((emit = h), () => undefined),
    };
    TestBed.configureTestingModule({
      providers: [
        ReportsStore,
        { provide: ReportsApi, useValue: api },
        { provide: ChatSocket, useValue: socket },
      ],
    });
    store = TestBed.inject(ReportsStore);
  });

  const file = (name: string) => new File(['{}'], name);

  it('follows each upload from queued through parsing to its outcome, reloading the list when one is imported', async () => {
    await store.importFiles([file('a.sarif'), file('huge.json')]);
    expect(store.imports().map((i) => [i.file, i.state])).toEqual([
      ['a.sarif', 'queued'],
      ['huge.json', 'done'],
    ]);
    expect(store.imports()[1]!.outcome).toMatchObject({
      ok: false,
      error: 'A file is over the 50 MB import limit; nothing was imported.',
    });
    expect(store.importing()).toBe(true);

    emit(view('id-a.sarif', 'a.sarif', 'parsing'));
    expect(store.imports()[0]!.state).toBe('parsing');
    const loads = api['listReports']!.mock.calls.length;
    emit(
      view('id-a.sarif', 'a.sarif', 'ready', {
        outcome: { ok: true, file: 'a.sarif', reportId: 7, format: 'sarif', findingCount: 53 },
      }),
    );
    expect(store.imports()[0]).toMatchObject({
      state: 'done',
      outcome: { ok: true, reportId: 7, findingCount: 53 },
    });
    expect(api['listReports']!.mock.calls.length).toBe(loads + 1);
    expect(store.importing()).toBe(false);
  });

  it("an import clears the last archive's notice: its Undo may no longer apply (the file may come back)", async () => {
    await store.setArchived({ id: 1, filename: 'a.sarif' }, true);
    expect(store.archiveNotice()?.undo).toEqual({ id: 1, filename: 'a.sarif', archived: false });
    await store.importFiles([file('a.sarif')]);
    expect(store.archiveNotice()).toBeNull();
  });

  it("shows the importer's reason for a refused file, and a status that came before the upload's answer", async () => {
    const duplicate = {
      ok: false as const,
      file: 'b.xml',
      code: 'DUPLICATE' as const,
      existingReportId: 3,
      error: 'this report was already imported as report 3 (b.xml); archive that one to import it again',
    };
    api['queueImports']!.mockImplementationOnce(async (files: File[]) => {
      emit(view('id-b', 'b.xml', 'failed', { outcome: duplicate, error: duplicate.error }));
      return [view('id-b', files[0]!.name, 'queued')];
    });
    await store.importFiles([file('b.xml')]);
    expect(store.imports()[0]).toMatchObject({ state: 'done', outcome: duplicate });
  });

  it('keeps every file of a large batch and a batch still running when more files come', async () => {
    const folder = Array.from({ length: 55 }, (_, n) => file(`f${n}.txt`));
    await store.importFiles(folder);
    await store.importFiles([file('late.sarif')]);
    expect(store.imports().map((i) => i.file)).toEqual(['late.sarif', ...folder.map((f) => f.name)]);

    const refused = {
      ok: false as const,
      file: 'f54.txt',
      code: 'UNRECOGNISED_FORMAT' as const,
      error: 'prose',
    };
    emit(view('id-f54.txt', 'f54.txt', 'failed', { outcome: refused, error: 'prose' }));
    expect(store.imports().find((i) => i.file === 'f54.txt')).toMatchObject({
      state: 'done',
      outcome: refused,
    });
  });

  it('drops the oldest finished results past 50 when a new batch comes', async () => {
    await store.importFiles(Array.from({ length: 60 }, (_, n) => file(`old${n}.sarif`)));
    for (let n = 0; n < 60; n++) emit(view(`id-old${n}.sarif`, `old${n}.sarif`, 'cancelled'));
    await store.importFiles([file('new.sarif')]);
    expect(store.imports().map((i) => i.file)).toEqual([
      'new.sarif',
      ...Array.from({ length: 49 }, (_, n) => `old${n}.sarif`),
    ]);
  });

  it('cancels a running import', async () => {
    await store.importFiles([file('b.xml')]);
    await store.cancelImport(store.imports()[0]!);
    expect(api['cancelImport']).toHaveBeenCalledWith('id-b.xml');
    expect(store.imports()[0]!.state).toBe('cancelled');
    expect(store.importing()).toBe(false);
  });
});

describe('IMPORT_ACCEPT', () => {
  it('lets the file picker offer every extension an importer reads', () => {
    const accepted = IMPORT_ACCEPT.split(',');
    for (const ext of ['.json', '.jsonl', '.sarif', '.xml', '.nessus', '.csv'])
      expect(accepted).toContain(ext);
    expect(new Set(accepted).size).toBe(accepted.length);
  });
});

describe('ReportsStore search, sorting and paging', () => {
  const many = (n: number): ReportSummary[] =>
    Array.from({ length: n }, (_, i) => ({
      ...report(1, `scan-${String(i + 1).padStart(2, '0')}.${i % 3 === 0 ? 'json' : 'sarif'}`),
      id: i + 1,
      format: i % 3 === 0 ? 'trivy' : 'sarif',
      findingCount: (i * 7) % 11,
      createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    }));
  let store: ReportsStore;

  beforeEach(async () => {
    const rows = many(30);
    TestBed.resetTestingModule();
    TestBed.configureTestingModule({
      providers: [
        ReportsStore,
        {
          provide: ReportsApi,
          useValue: { listReports: () => Promise.resolve(rows), overview: () => Promise.resolve(null) },
        },
      ],
    });
    store = TestBed.inject(ReportsStore);
    await store.load();
  });

  it('pages the newest first, 25 to a page, and keeps the page within range', () => {
    expect(store.range()).toEqual({ from: 1, to: 25, total: 30 });
    expect(store.reports()[0]!.filename).toBe('scan-30.sarif');
    store.goToPage(1);
    expect(store.range()).toEqual({ from: 26, to: 30, total: 30 });
    expect(store.reports().map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
    store.goToPage(9);
    expect(store.page()).toBe(1);
  });

  it('searches file names and formats from the first page', () => {
    store.goToPage(1);
    store.setQuery('TRIVY');
    expect(store.range()).toEqual({ from: 1, to: 10, total: 10 });
    expect(store.reports().every((r) => r.format === 'trivy')).toBe(true);
    store.setQuery('scan-07');
    expect(store.reports().map((r) => r.filename)).toEqual(['scan-07.json']);
    store.setQuery('nothing like it');
    expect(store.range()).toEqual({ from: 0, to: 0, total: 0 });
  });

  it('sorts by a column, flips on the second click, and breaks ties newest first', () => {
    store.sortBy('filename');
    expect(store.sort()).toEqual({ key: 'filename', dir: 'asc' });
    expect(store.reports()[0]!.filename).toBe('scan-01.json');
    store.sortBy('filename');
    expect(store.reports()[0]!.filename).toBe('scan-30.sarif');

    store.sortBy('findingCount');
    expect(store.sort()).toEqual({ key: 'findingCount', dir: 'desc' });
    const counts = store.matching().map((r) => r.findingCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const tens = store.matching().filter((r) => r.findingCount === 10);
    expect(tens.map((r) => r.createdAt)).toEqual(
      tens
        .map((r) => r.createdAt)
        .sort()
        .reverse(),
    );
  });
});
