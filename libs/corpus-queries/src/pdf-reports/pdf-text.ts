import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ImportRefusal, invalidAt } from '../importers/import-refusal';

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

/**
 * Runs in a worker thread: pdfjs-dist ships as ES modules only (loaded with `import()`, which the
 * CommonJS build cannot do in process), and parsing a long report keeps a CPU busy for seconds,
 * which must not stall the worker's event loop (job lock renewal, running turns).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { getDocument } = await import(workerData.moduleUrl);
  const doc = await getDocument({ data: workerData.data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((it) => ('str' in it ? it.str + (it.hasEOL ? '\\n' : '') : '')).join(''));
      page.cleanup();
    }
    parentPort.postMessage({ pages });
  } finally {
    await doc.destroy();
  }
})().catch((e) => parentPort.postMessage({ error: String((e && e.message) || e), name: e && e.name }));
`;

let moduleUrl: string | undefined;

/**
 * The text layer of a PDF, page by page, read with pdfjs-dist's Node build in a worker thread.
 *
 * @throws ImportRefusal `NO_TEXT_LAYER` when no page has any text (a scanned image), `INVALID` when
 *   pdfjs cannot read the file (broken, or protected by a password).
 */
export async function extractPdfText(bytes: Uint8Array): Promise<PdfText> {
  moduleUrl ??= pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href;
  // A copy: pdfjs takes ownership of the buffer it is given.
  const data = new Uint8Array(bytes);
  const answer = await new Promise<{ pages?: string[]; error?: string; name?: string }>((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { moduleUrl, data },
      transferList: [data.buffer],
    });
    worker.once('message', (m) => {
      resolve(m);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the PDF reader stopped (exit code ${code})`)));
  });
  if (answer.error !== undefined) {
    if (answer.name === 'PasswordException')
      throw invalidAt('', 'the PDF is protected by a password; remove the password and import it again');
    throw invalidAt('', `the PDF could not be read: ${answer.error}`);
  }
  const pages = (answer.pages ?? []).map((p) => p.replaceAll('\u0000', ''));
  if (!pages.some((p) => p.trim() !== '')) throw new ImportRefusal('NO_TEXT_LAYER', NO_TEXT_LAYER);
  return { pages };
}
