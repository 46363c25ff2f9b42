import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ImportRefusal, invalidAt } from '../importers/import-refusal';
import { ParseCancelled } from '../importers/parse-thread';

/** The text of a PDF, page by page (page 1 first). */
export interface PdfText {
  pages: string[];
}

/** True when `bytes` are a PDF (IMPORT-RULES: content starting with `%PDF-`, after an optional byte-order mark). */
export function isPdf(bytes: Uint8Array): boolean {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return (
    Buffer.from(
      bytes.buffer,
      bytes.byteOffset + start,
      Math.min(5, Math.max(0, bytes.byteLength - start)),
    ).toString('latin1') === '%PDF-'
  );
}

export const NO_TEXT_LAYER = 'no text layer (scanned image); OCR is not supported';

/** Limits of the PDF reader: a report longer than these is refused, not read. */
export interface PdfReadLimits {
  /** Pages (default 1,000). */
  maxPages: number;
  /** Characters of text over all pages (default 5 million). */
  maxChars: number;
  /**
   * The reader's time: `deadlineMs` plus `deadlineMsPerKb` per KB (one small stream can expand to
   * megabytes of drawing, so size alone does not bound the work).
   */
  deadlineMs: number;
  deadlineMsPerKb: number;
  /** The reader thread's heap (V8 `maxOldGenerationSizeMb`, default 512). */
  maxHeapMb: number;
}

export const DEFAULT_PDF_READ_LIMITS: PdfReadLimits = {
  maxPages: 1000,
  maxChars: 5_000_000,
  deadlineMs: 5000,
  deadlineMsPerKb: 10,
  maxHeapMb: 512,
};

/**
 * Runs in a worker thread: pdfjs-dist is ESM-only and parsing keeps a CPU busy for seconds, which
 * must not stall the worker's event loop. Stops at the page and text limits.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { getDocument } = await import(workerData.moduleUrl);
  const doc = await getDocument({ data: workerData.data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    if (doc.numPages > workerData.maxPages) return parentPort.postMessage({ over: 'pages', count: doc.numPages });
    const pages = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const text = content.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\\n' : '') : '')).join('');
      page.cleanup();
      chars += text.length;
      if (chars > workerData.maxChars) return parentPort.postMessage({ over: 'text', count: n });
      pages.push(text);
    }
    parentPort.postMessage({ pages });
  } finally {
    await doc.destroy();
  }
})().catch((e) => parentPort.postMessage({ error: String((e && e.message) || e), name: e && e.name }));
`;

type ReaderAnswer = {
  pages?: string[];
  error?: string;
  name?: string;
  over?: 'pages' | 'text';
  count?: number;
};

let moduleUrl: string | undefined;

/**
 * The text layer of a PDF, page by page, read in a worker thread bounded by `limits`.
 *
 * @throws ImportRefusal `NO_TEXT_LAYER` (a scanned image) or `INVALID` (unreadable, a limit hit).
 * @throws ParseCancelled when `signal` aborted the read.
 */
export async function extractPdfText(
  bytes: Uint8Array,
  signal?: AbortSignal,
  limits: PdfReadLimits = DEFAULT_PDF_READ_LIMITS,
): Promise<PdfText> {
  moduleUrl ??= pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  const deadlineMs = limits.deadlineMs + Math.ceil((bytes.byteLength / 1024) * limits.deadlineMsPerKb);
  // A copy: pdfjs takes ownership of the buffer it is given.
  const data = new Uint8Array(bytes);
  const answer = await new Promise<ReaderAnswer>((resolve, reject) => {
    if (signal?.aborted) return reject(new ParseCancelled());
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { moduleUrl, data, maxPages: limits.maxPages, maxChars: limits.maxChars },
      transferList: [data.buffer],
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
    });
    const stop = (outcome: () => void) => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', cancel);
      worker.removeAllListeners();
      worker.on('error', () => undefined);
      void worker.terminate();
      outcome();
    };
    const cancel = () => stop(() => reject(new ParseCancelled()));
    const deadline = setTimeout(
      () =>
        stop(() =>
          reject(
            invalidAt(
              '',
              `the PDF took more than ${Math.round(deadlineMs / 1000)} s to read (its pages hold far more drawing than its size suggests); nothing was imported`,
            ),
          ),
        ),
      deadlineMs,
    );
    signal?.addEventListener('abort', cancel, { once: true });
    worker.once('message', (m: ReaderAnswer) => stop(() => resolve(m)));
    worker.once('error', (e: Error & { code?: string }) =>
      stop(() =>
        reject(
          e.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? invalidAt(
                '',
                `the PDF needs more than ${limits.maxHeapMb} MB of memory to read; nothing was imported`,
              )
            : e,
        ),
      ),
    );
    worker.once('exit', (code) =>
      stop(() => reject(new Error(`the PDF reader stopped (exit code ${code})`))),
    );
  });
  if (answer.over === 'pages')
    throw invalidAt(
      '',
      `the PDF has ${answer.count} pages; at most ${limits.maxPages} are read, so split it`,
    );
  if (answer.over === 'text')
    throw invalidAt(
      '',
      `the PDF holds more than ${limits.maxChars.toLocaleString('en-US')} characters of text (reached on page ${answer.count}); split it`,
    );
  if (answer.error !== undefined) {
    if (answer.name === 'PasswordException')
      throw invalidAt('', 'the PDF is protected by a password; remove the password and import it again');
    throw invalidAt('', `the PDF could not be read: ${answer.error}`);
  }
  const pages = (answer.pages ?? []).map((p) => p.replaceAll('\u0000', ''));
  if (!pages.some((p) => p.trim() !== '')) throw new ImportRefusal('NO_TEXT_LAYER', NO_TEXT_LAYER);
  return { pages };
}
