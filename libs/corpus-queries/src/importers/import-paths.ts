import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';
import type { AuditActor } from '../audit/audit-log';
import { importReport } from './import-report';
import { DEFAULT_MAX_IMPORT_BYTES, sizeRefusal } from './parse-report';

/** Files under `target` (itself when a file), hidden entries skipped, in name order. Throws ENOENT for a missing path. */
export function* walkImportFiles(target: string): Generator<string> {
  if (!fs.statSync(target).isDirectory()) {
    yield target;
    return;
  }
  for (const entry of fs.readdirSync(target).sort()) {
    if (entry.startsWith('.')) continue;
    yield* walkImportFiles(path.join(target, entry));
  }
}

/**
 * Imports every file of `targets` (files or folders, walked in name order), one transaction per
 * file, refusing an over-size file before reading it. Calls `onOutcome` after each file. Each
 * imported report is recorded in the audit log as `actor`'s when one is given.
 * Never throws for a file's content; an unreadable path gives an `ok: false` outcome.
 */
export async function importPaths(
  dataSource: DataSource,
  targets: string[],
  options: {
    maxBytes?: number;
    actor?: AuditActor;
    onOutcome?: (outcome: ImportOutcome, fullPath: string) => void;
  } = {},
): Promise<ImportOutcome[]> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_IMPORT_BYTES;
  const outcomes: ImportOutcome[] = [];
  const record = (o: ImportOutcome, full: string) => {
    outcomes.push(o);
    options.onOutcome?.(o, full);
  };
  for (const target of targets) {
    let files: string[];
    try {
      files = [...walkImportFiles(target)];
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      record(
        {
          ok: false,
          file: target,
          code: 'INVALID',
          error: missing ? 'no such file or folder' : (e as Error).message,
        },
        target,
      );
      continue;
    }
    for (const file of files) {
      const tooLarge = sizeRefusal(fs.statSync(file).size, maxBytes);
      if (tooLarge) {
        record({ ok: false, file: path.basename(file), code: tooLarge.code, error: tooLarge.message }, file);
        continue;
      }
      record(
        await importReport(
          dataSource,
          { filename: file, bytes: fs.readFileSync(file) },
          { maxBytes, actor: options.actor },
        ),
        file,
      );
    }
  }
  return outcomes;
}
