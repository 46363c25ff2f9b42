import fs from 'node:fs';
import { corpusPath } from '../testing/shared-corpus';
import { ImportRefusal } from '../importers/import-refusal';
import { extractPdfText, isPdf, NO_TEXT_LAYER } from './pdf-text';

const read = (rel: string) => new Uint8Array(fs.readFileSync(corpusPath(rel)));

describe('PDF text extraction (pdfjs-dist, in a worker thread)', () => {
  test('reads every page of the Trail of Bits Kubernetes report, with its finding ids', async () => {
    const { pages } = await extractPdfText(read('pdf/k8s__2019-TrailOfBits-Kubernetes-Final-Report.pdf'));
    expect(pages.length).toBe(117);
    const text = pages.join('\f');
    expect(text).toMatch(/TOB-K8S-\d{3}/);
    // The findings table lists each issue by id; page 1 is the title page.
    expect(pages[0]).toMatch(/Kubernetes/i);
  });

  test('reads the NCATS sample reports', async () => {
    const vadr = await extractPdfText(read('pdf/ppr__NCATS-VADR-Sample-Report.pdf'));
    expect(vadr.pages.length).toBe(23);
    expect(vadr.pages.join('\n')).toMatch(/Risk and Vulnerability Assessment|VADR|vulnerabilit/i);
  });

  test('a scanned PDF without a text layer is refused, naming why', async () => {
    const refused = await extractPdfText(read('edge/pdf__ppr__CPTC-2020-Finals-G-image-only.pdf')).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ImportRefusal);
    expect(refused).toMatchObject({ code: 'NO_TEXT_LAYER', message: NO_TEXT_LAYER });
    expect(NO_TEXT_LAYER).toBe('no text layer (scanned image); OCR is not supported');
  });

  test('a file that only starts like a PDF is refused as unreadable', async () => {
    const refused = await extractPdfText(new TextEncoder().encode('%PDF-1.7\nthis is not a PDF body')).catch(
      (e: unknown) => e,
    );
    expect(refused).toMatchObject({
      code: 'INVALID',
      message: expect.stringMatching(/^the PDF could not be read: /),
    });
  });

  test('detection follows the content, not the name (a byte-order mark is skipped)', () => {
    expect(isPdf(new TextEncoder().encode('%PDF-1.4 ...'))).toBe(true);
    expect(isPdf(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('%PDF-1.4')]))).toBe(true);
    expect(isPdf(new TextEncoder().encode('{"format": "%PDF-"}'))).toBe(false);
    expect(isPdf(new Uint8Array([0x25]))).toBe(false);
  });
});
