import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ReportsApi } from './reports-api';
import { ReportsStore } from './reports-store';

describe("Importing reports: refusals show the server's reason", () => {
  let http: HttpTestingController;
  let store: ReportsStore;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(), provideHttpClientTesting(), ReportsApi, ReportsStore],
    });
    http = TestBed.inject(HttpTestingController);
    store = TestBed.inject(ReportsStore);
  });

  /** Imports `file`, answers the upload with `status`/`body`, and the reload after it with empty lists. */
  async function importAnswered(status: number, body: string | object): Promise<string | undefined> {
    const done = store.importFiles([new File(['{}'], 'big.sarif')]);
    http.expectOne('/api/reports/import').flush(body, { status, statusText: 'x' });
    // The refusal is recorded before the list reloads: wait for it (bounded), then answer the reload.
    await vi.waitFor(() => expect(store.imports()[0]?.outcome).toBeDefined(), { timeout: 2000 });
    http.match('/api/reports').forEach((r) => r.flush([]));
    http.match('/api/corpus/overview').forEach((r) => r.flush(null));
    await done;
    const outcome = store.imports()[0]?.outcome;
    return outcome && !outcome.ok ? outcome.error : undefined;
  }

  it('a 413 for the whole request shows the API\'s message, not "no result"', async () => {
    const message = 'A file is over the 50 MB import limit; nothing was imported.';
    expect(await importAnswered(413, { statusCode: 413, error: 'TOO_LARGE', message, results: [] })).toBe(
      message,
    );
  });

  it("a 413 without a JSON body (a proxy's page) says the file is too large", async () => {
    expect(await importAnswered(413, '<html><body>413 Request Entity Too Large</body></html>')).toBe(
      'Too large for the server.',
    );
  });
});
