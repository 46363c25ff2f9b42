import fs from 'node:fs';
import type { EntityManager } from 'typeorm';

/**
 * Uploads wait in Postgres between the API and the importing worker, so they share no disk; 1 MiB
 * chunks keep each statement small.
 */
const CHUNK_BYTES = 1 << 20;

/** An upload whose chunks are missing or short (deleted by a cancel, or the row was edited). */
export class UploadMissingError extends Error {
  constructor(importJobId: string) {
    super(`the uploaded file of import ${importJobId} is no longer stored`);
  }
}

/** Copies the local file `filePath` into the chunks of import `importJobId`, within `tx`. */
export async function storeUpload(tx: EntityManager, importJobId: string, filePath: string): Promise<void> {
  let seq = 0;
  for await (const chunk of fs.createReadStream(filePath, { highWaterMark: CHUNK_BYTES })) {
    await tx.query(`INSERT INTO import_upload_chunks (import_job_id, seq, data) VALUES ($1, $2, $3)`, [
      importJobId,
      seq++,
      chunk,
    ]);
  }
}

/**
 * The bytes of import `importJobId`, read chunk by chunk. @throws UploadMissingError unless they
 * add up to `sizeBytes`.
 */
export async function readUpload(
  manager: EntityManager,
  importJobId: string,
  sizeBytes: number,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let read = 0;
  while (read < sizeBytes) {
    const [row]: { data: Buffer }[] = await manager.query(
      `SELECT data FROM import_upload_chunks WHERE import_job_id = $1 AND seq = $2`,
      [importJobId, chunks.length],
    );
    if (!row) break;
    chunks.push(row.data);
    read += row.data.byteLength;
  }
  if (read !== sizeBytes) throw new UploadMissingError(importJobId);
  return Buffer.concat(chunks, read);
}

/** Deletes the stored upload of import `importJobId` (nothing when there is none). */
export async function removeUpload(manager: EntityManager, importJobId: string): Promise<void> {
  await manager.query(`DELETE FROM import_upload_chunks WHERE import_job_id = $1`, [importJobId]);
}
