import fs from 'node:fs/promises';

/** Bytes of a file's start read to tell a report from something else. */
const HEAD_BYTES = 4096;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether an upload's start can be a report: a PDF or UTF-8 text without NUL. Anything finer is the
 * importer's to judge, so the rules stay in one place.
 */
export async function mayBeReportFile(filePath: string): Promise<boolean> {
  const handle = await fs.open(filePath, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return true;
  if (head.includes(0)) return false;
  // The head may end inside a multi-byte character: judge it without its last 3 bytes.
  const whole = head.length < HEAD_BYTES;
  for (let trim = 0; trim <= (whole ? 0 : 3); trim++) {
    try {
      utf8.decode(head.subarray(0, head.length - trim));
      return true;
    } catch {
      // try a shorter head
    }
  }
  return false;
}
