import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './shared-corpus';

/**
 * The variable table of docs/configuration.md: each row's variable and the processes its second
 * column names. Each app's `env-table.spec.ts` holds its rows equal to its env schemas.
 */
export function documentedVariables(): Map<string, string[]> {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
  const rows = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|([^|]*)\|/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        m[2]!.split(',').map((p) => p.trim()),
      );
  }
  return rows;
}

/** The documented variables of one process, sorted. */
export function documentedFor(processName: string): string[] {
  return [...documentedVariables()]
    .filter(([, processes]) => processes.includes(processName))
    .map(([name]) => name)
    .sort();
}

/** Variables of zod env schemas (the keys of their `shape`), sorted and without repeats. */
export function schemaVariables(...schemas: { shape: Record<string, unknown> }[]): string[] {
  return [...new Set(schemas.flatMap((schema) => Object.keys(schema.shape)))].sort();
}
