import fs from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { ImportOutcome } from '@corpus-chat/contracts';
import type { AuditActor } from '@corpus-chat/persistence';
import { importFailure } from './import-failure';
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
 * Imports every file of `targets` (folders walked in name order), one transaction per file,
 * audited as `actor`'s. Never throws for a file: a failure is that file's `ok: false` outcome.
 */
export async function importPaths(
  dataSource: DataSource,
  targets: string[],
  options: {
    maxBytes?: number;
    actor?: AuditActor;
    /** Also skip files whose report was archived (`ImportOptions.archivedToo`). */
    archivedToo?: boolean;
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
      let outcome: ImportOutcome;
      try {
        const bytes = fs.readFileSync(file);
        outcome = await importReport(
          dataSource,
          { filename: file, bytes },
          { maxBytes, actor: options.actor, archivedToo: options.archivedToo },
        );
      } catch (e) {
        outcome = importFailure(path.basename(file), e);
      }
      record(outcome, file);
    }
  }
  return outcomes;
}

/** What a batch did, for people: imported, skipped as already imported, refused (with why). */
export function batchSummary(outcomes: ImportOutcome[]): string[] {
  const imported = outcomes.filter((o) => o.ok);
  const skipped = outcomes.filter((o) => !o.ok && o.code === 'DUPLICATE');
  const refused = outcomes.filter((o) => !o.ok && o.code !== 'DUPLICATE');
  const lines = [
    `imported ${imported.length} report(s), skipped ${skipped.length} already imported, refused ${refused.length}`,
  ];
  for (const o of imported)
    if (o.ok) lines.push(`  imported ${o.file}: ${o.format}, ${o.findingCount} findings`);
  for (const o of refused) if (!o.ok) lines.push(`  refused  ${o.file}: ${o.error}`);
  return lines;
}
