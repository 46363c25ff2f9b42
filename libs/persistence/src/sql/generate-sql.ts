import type { DataSource } from 'typeorm';

/**
 * Ids the SQL snapshot spec seeds before calling the registered methods: an operator owning a
 * thread with one queued turn (its user message), and an id that matches nothing.
 */
export const SQL_EXAMPLE = {
  operatorId: '00000000-0000-4000-8000-000000000001',
  chatId: '00000000-0000-4000-8000-000000000002',
  turnId: '00000000-0000-4000-8000-000000000003',
  missingId: '00000000-0000-4000-8000-00000000000f',
} as const;

/** A repository whose queries are snapshotted: constructed on the snapshot's data source. */
export type SqlRepository = new (db: DataSource) => object;

/** One call of a repository method whose statements go into its class's `sql/*.sql` snapshot. */
export interface SqlExampleCall {
  method: string;
  /** Its example arguments (see `SQL_EXAMPLE`). */
  params: unknown[];
}

const examples = new Map<SqlRepository, SqlExampleCall[]>();

/**
 * Marks a repository method for the SQL snapshots (`npm run sql:sync` regenerates them; the spec
 * in this folder fails when they differ), so a changed query shows as a diff of SQL in review.
 */
export function GenerateSql(...calls: { params: unknown[] }[]): MethodDecorator {
  return (target, method) => {
    const repository = target.constructor as SqlRepository;
    const list = examples.get(repository) ?? [];
    list.push(...calls.map((c) => ({ method: String(method), params: c.params })));
    examples.set(repository, list);
  };
}

/** The methods marked with `GenerateSql`, by repository, in declaration order. */
export function sqlExamples(): ReadonlyMap<SqlRepository, readonly SqlExampleCall[]> {
  return examples;
}
