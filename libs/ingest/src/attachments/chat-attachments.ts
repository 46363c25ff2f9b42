import type { DataSource, EntityManager } from 'typeorm';
import type { ChatAttachmentView } from '@corpus-chat/contracts';
import { checkImportQuota, type ImportQuota } from '../importers/import-quota';
import {
  findImportJobs,
  type ImportJobRecord,
  importJobView,
  insertImportJob,
  type StoredUpload,
} from '../importers/import-jobs';

interface AttachmentRow {
  id: string;
  chat_id: string;
  import_id: string;
  created_at: Date;
}

/** An attachment with its import as stored (the API queues the import's job). */
export interface ChatAttachmentRecord {
  id: string;
  chatId: string;
  createdAt: string;
  import: ImportJobRecord;
}

export function chatAttachmentView(record: ChatAttachmentRecord): ChatAttachmentView {
  return {
    id: record.id,
    chatId: record.chatId,
    createdAt: record.createdAt,
    import: importJobView(record.import),
  };
}

/**
 * Attaches `upload` to thread `chatId` of `ownerId`: one transaction records its `queued` import
 * and the attachment, so neither exists without the other. Resolves null (nothing written) when the
 * thread is not the operator's; throws `ImportQuotaExceeded` past `quota` (the uploads' quota).
 */
export async function createChatAttachment(
  dataSource: DataSource,
  ownerId: string,
  chatId: string,
  upload: StoredUpload,
  quota?: ImportQuota,
): Promise<ChatAttachmentRecord | null> {
  return dataSource.transaction(async (tx) => {
    // FOR SHARE: a thread deleted meanwhile cannot lose the attachment half-way.
    const owned: unknown[] = await tx.query(
      `SELECT 1 FROM chat_sessions WHERE id = $1 AND owner_id = $2 FOR SHARE`,
      [chatId, ownerId],
    );
    if (!owned.length) return null;
    if (quota) await checkImportQuota(tx, ownerId, [upload], quota);
    const job = await insertImportJob(tx, ownerId, upload);
    const [row]: AttachmentRow[] = await tx.query(
      `INSERT INTO chat_attachments (chat_id, import_id) VALUES ($1, $2) RETURNING id, chat_id, import_id, created_at`,
      [chatId, job.id],
    );
    return { id: row.id, chatId, createdAt: row.created_at.toISOString(), import: job };
  });
}

/** The attachments of thread `chatId` of `ownerId`, oldest first; null when the thread is not theirs. */
export async function listChatAttachments(
  manager: EntityManager,
  ownerId: string,
  chatId: string,
): Promise<ChatAttachmentRecord[] | null> {
  const owned: unknown[] = await manager.query(
    `SELECT 1 FROM chat_sessions WHERE id = $1 AND owner_id = $2`,
    [chatId, ownerId],
  );
  if (!owned.length) return null;
  const rows: AttachmentRow[] = await manager.query(
    `SELECT id, chat_id, import_id, created_at FROM chat_attachments WHERE chat_id = $1 ORDER BY created_at, id`,
    [chatId],
  );
  const jobs = await findImportJobs(
    manager,
    ownerId,
    rows.map((r) => r.import_id),
  );
  return rows.flatMap((r) => {
    const job = jobs.get(r.import_id);
    return job ? [{ id: r.id, chatId: r.chat_id, createdAt: r.created_at.toISOString(), import: job }] : [];
  });
}

/**
 * Removes attachment `attachmentId` from thread `chatId` of `ownerId`, resolving the removed
 * record (null when there is none). The report it became stays in the corpus; an import still
 * running is the caller's to cancel.
 */
export async function deleteChatAttachment(
  dataSource: DataSource,
  ownerId: string,
  chatId: string,
  attachmentId: string,
): Promise<ChatAttachmentRecord | null> {
  const [rows]: [AttachmentRow[], number] = await dataSource.query(
    `DELETE FROM chat_attachments a USING chat_sessions c
      WHERE a.id = $1 AND a.chat_id = $2 AND c.id = a.chat_id AND c.owner_id = $3
      RETURNING a.id, a.chat_id, a.import_id, a.created_at`,
    [attachmentId, chatId, ownerId],
  );
  const row = rows[0];
  if (!row) return null;
  const job = (await findImportJobs(dataSource.manager, ownerId, [row.import_id])).get(row.import_id);
  return job ? { id: row.id, chatId, createdAt: row.created_at.toISOString(), import: job } : null;
}
