import fs from 'node:fs';
import zlib from 'node:zlib';
import { corpusPath } from '../testing/shared-corpus';
import { ImportRefusal } from '../importers/import-refusal';
import { ParseCancelled } from '../importers/parse-thread';
import { DEFAULT_PDF_READ_LIMITS, extractPdfText, isPdf, NO_TEXT_LAYER } from './pdf-text';

/** A small PDF whose pages all draw one highly compressed content stream. */
function sharedStreamPdf(pageCount: number, repeats: number): Uint8Array {
  const content = zlib.deflateSync(
    Buffer.from('BT /F1 12 Tf 10 10 Td (Hello world) Tj ET\n'.repeat(repeats)),
    { level: 9 },
  );
  const kids = Array.from({ length: pageCount }, (_, i) => `${5 + i} 0 R`).join(' ');
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${kids}] /Count ${pageCount} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`),
      content,
      Buffer.from('\nendstream'),
    ]),
    ...Array.from(
      { length: pageCount },
      () =>
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>',
    ),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((o, i) => {
    offsets.push(length);
    const b = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.from(o), Buffer.from('\nendobj\n')]);
    parts.push(b);
    length += b.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref));
  return new Uint8Array(Buffer.concat(parts));
}

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

  describe('limits', () => {
    /** About 15 kB: 40 pages drawing one stream that inflates to 4 MB of text operators. */
    const sharedStream = () => sharedStreamPdf(40, 100_000);

    test('a small PDF whose pages share one huge stream is refused within seconds', async () => {
      const pdf = sharedStream();
      expect(pdf.byteLength).toBeLessThan(20_000);
      const started = Date.now();
      const refused = await extractPdfText(pdf).catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'INVALID',
        message: expect.stringMatching(/took more than 5 s to read|characters of text/),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
    }, 30_000);

    test('cancelling stops the reader thread at once', async () => {
      const cancel = new AbortController();
      const reading = extractPdfText(sharedStream(), cancel.signal).catch((e: unknown) => e);
      setTimeout(() => cancel.abort(), 200);
      const started = Date.now();
      expect(await reading).toBeInstanceOf(ParseCancelled);
      expect(Date.now() - started).toBeLessThan(2000);
    }, 30_000);

    test('a PDF over the page or text limit is refused, naming the limit', async () => {
      const vadr = read('pdf/ppr__NCATS-VADR-Sample-Report.pdf');
      await expect(
        extractPdfText(vadr, undefined, { ...DEFAULT_PDF_READ_LIMITS, maxPages: 10 }),
      ).rejects.toMatchObject({
        code: 'INVALID',
        message: 'the PDF has 23 pages; at most 10 are read, so split it',
      });
      await expect(
        extractPdfText(vadr, undefined, { ...DEFAULT_PDF_READ_LIMITS, maxChars: 1000 }),
      ).rejects.toMatchObject({
        code: 'INVALID',
        message: expect.stringMatching(
          /^the PDF holds more than 1,000 characters of text \(reached on page \d+\); split it$/,
        ),
      });
    }, 30_000);
  });
});
