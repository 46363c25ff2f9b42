/**
 * Generated robustness suite of the importer: every shared scanner file (scans/<format>/ and edge/)
 * mutated in size, text, structure and (CSV) layout, each mutation imported through the real
 * importer into Postgres. Each one either imports (with the finding count of the original where
 * the mutation keeps the meaning: BOM, CRLF, one line, another CSV delimiter, extra columns) or is
 * refused with a sentence; never a thrown error, database or stack text, or a half-stored report.
 *
 * `npm run test:fuzz` (`FUZZ_FULL=1`) runs every mutation of every file, 100,000-finding files
 * included. Otherwise (`npm test`) a sample of `IMPORT_FUZZ_SAMPLE` cases (default 30) picked by
 * `FUZZ_SEED` (random when unset; the seed is in the test title, to replay a failure).
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { parse as parseCsvRows } from 'csv-parse/sync';
import { corpusPath, mulberry32 } from '../testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { setReportArchived } from '@corpus-chat/corpus-queries';
import { importReport } from './import-report';
import { parseReportFile } from './parse-report';

const FULL = process.env['FUZZ_FULL'] === '1';
const SEED = process.env['FUZZ_SEED'] ? Number(process.env['FUZZ_SEED']) : randomInt(2 ** 31);
const SAMPLE = Number(process.env['IMPORT_FUZZ_SAMPLE'] ?? 30);
const MODE = FULL
  ? 'every mutation'
  : `sample of ${SAMPLE}, replay: FUZZ_SEED=${SEED} npx jest libs/ingest/src/importers/import-robustness.int-spec.ts`;

type Kind = 'json' | 'jsonl' | 'xml' | 'csv';
interface Base {
  name: string;
  text: string;
  kind: Kind;
}
interface Mutation {
  name: string;
  /** The mutated bytes, or null when the mutation does not apply to this file. */
  apply(base: Base, random: () => number): string | Buffer | null;
  /** The mutated file keeps the original's meaning: same finding count. */
  keepsCount?: boolean;
  fullOnly?: boolean;
}

// ---- the shared files

function baseFiles(): Base[] {
  const dirs = [...fs.readdirSync(corpusPath('scans')).map((f) => path.join('scans', f)), 'edge'];
  const bases: Base[] = [];
  for (const dir of dirs)
    for (const f of fs.readdirSync(corpusPath(dir)).sort()) {
      if (f.endsWith('.pdf')) continue;
      const text = fs.readFileSync(corpusPath(path.join(dir, f)), 'utf8');
      const start = text.replace(/^\uFEFF/, '').trimStart();
      const kind: Kind = start.startsWith('<')
        ? 'xml'
        : start.startsWith('{') || start.startsWith('[')
          ? isJson(start)
            ? 'json'
            : 'jsonl'
          : 'csv';
      bases.push({ name: `${dir.replace('scans/', '')}/${f}`, text, kind });
    }
  return bases;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---- helpers over JSON documents

/** Every string of `doc` (depth first), with a setter. */
function strings(doc: unknown): { get: () => string; set: (v: unknown) => void; del: () => void }[] {
  const out: ReturnType<typeof strings> = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node) || (node && typeof node === 'object')) {
      const o = node as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        if (typeof o[k] === 'string')
          out.push({ get: () => o[k] as string, set: (v) => (o[k] = v), del: () => delete o[k] });
        else walk(o[k]);
      }
    }
  };
  walk(doc);
  return out;
}

/** The longest array of `doc`: the results, alerts or vulnerabilities in practice. */
function longestArray(doc: unknown): unknown[] | null {
  let best: unknown[] | null = null;
  const walk = (node: unknown) => {
    if (Array.isArray(node)) {
      if (!best || node.length > best.length) best = node;
      node.forEach(walk);
    } else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(doc);
  return best;
}

/** `n` copies of `item`, every string of copy i suffixed `-i` (distinct hosts, ids and names). */
function copies(item: unknown, n: number): unknown[] {
  const json = JSON.stringify(item);
  // A report whose first finding is large would make a file over the import limit: one copy then.
  if (json.length * n > MAX_GENERATED) n = 1;
  return Array.from({ length: n }, (_, i) => {
    const copy = JSON.parse(json);
    for (const s of strings(copy)) s.set(`${s.get()}-${i}`);
    return copy;
  });
}

function mapJson(base: Base, fn: (doc: unknown) => unknown): string | null {
  if (base.kind === 'jsonl') {
    const lines = base.text.split('\n').filter((l) => l.trim());
    return lines.map((l) => JSON.stringify(fn(JSON.parse(l)))).join('\n');
  }
  if (base.kind !== 'json') return null;
  return JSON.stringify(fn(JSON.parse(base.text.replace(/^\uFEFF/, ''))), null, 1);
}

function withStrings(base: Base, fn: (s: string, random: () => number) => string, random: () => number) {
  if (base.kind === 'xml')
    return base.text.replace(/>([^<]*\S[^<]*)</g, (_, t: string) => `>${fn(t, random)}<`);
  if (base.kind === 'csv') {
    const rows = csvRows(base);
    if (!rows?.length) return null;
    return toCsv([rows[0], ...rows.slice(1).map((r) => r.map((c) => (c ? fn(c, random) : c)))], ',');
  }
  return mapJson(base, (doc) => {
    for (const s of strings(doc)) s.set(fn(s.get(), random));
    return doc;
  });
}

// ---- helpers over CSV

function csvRows(base: Base): string[][] | null {
  try {
    return parseCsvRows(base.text.replace(/^\uFEFF/, ''), {
      relax_column_count: true,
      relax_quotes: true,
      bom: true,
    });
  } catch {
    return null;
  }
}

function toCsv(rows: string[][], delimiter: string): string {
  const cell = (c: string) => (/[",;\t\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return rows.map((r) => r.map(cell).join(delimiter)).join('\n') + '\n';
}

function csvMap(base: Base, fn: (rows: string[][]) => string[][], delimiter = ','): string | null {
  if (base.kind !== 'csv') return null;
  const rows = csvRows(base);
  return rows && rows.length > 1 ? toCsv(fn(rows), delimiter) : null;
}

/** XML: the first repeated finding or host block, repeated `n` times with its name made distinct. */
function xmlRepeat(base: Base, n: number): string | null {
  if (base.kind !== 'xml') return null;
  const m = /<(ReportHost|site|issue)[\s>][\s\S]*?<\/\1>/.exec(base.text);
  if (!m) return null;
  const block = m[0];
  if (block.length * n > MAX_GENERATED) return null;
  const many = Array.from({ length: n }, (_, i) =>
    block.replace(/( name="|<host[^>]*>)([^"<]*)/, (_, a: string, v: string) => `${a}${v}.h${i}`),
  ).join('\n');
  return base.text.slice(0, m.index) + many + base.text.slice(m.index + block.length);
}

const MB = 1_048_576;
/** Largest generated file: under the 50 MB import limit. */
const MAX_GENERATED = 40 * MB;
const RTL = '\u200F\u202Eevil\u202C\u061C';

const MUTATIONS: Mutation[] = [
  // sizes
  { name: '0-byte file', apply: () => '' },
  {
    name: '10,000 hosts or targets',
    apply: (b) =>
      xmlRepeat(b, 10_000) ??
      csvMap(b, ([h, first, ...rest]) => [h, ...copies(first, 10_000).map((r) => r as string[]), ...rest]) ??
      mapJson(b, (doc) => {
        const a = longestArray(doc);
        if (a?.length) a.splice(0, a.length, ...copies(a[0], b.kind === 'jsonl' ? 1 : 10_000));
        return doc;
      }),
  },
  {
    name: '100,000 findings',
    fullOnly: true,
    apply: (b) =>
      csvMap(b, ([h, ...rows]) => [h, ...copies(rows[0], 100_000).map((r) => r as string[])]) ??
      (b.kind === 'json'
        ? mapJson(b, (doc) => {
            const a = longestArray(doc);
            if (a?.length) a.splice(0, a.length, ...copies(a[0], 100_000));
            return doc;
          })
        : null),
  },
  {
    name: '1 MB field',
    apply: (b) =>
      b.kind === 'xml'
        ? b.text.replace(/>([^<]*\S[^<]*)</, (_, t: string) => `>${t.repeat(Math.ceil(MB / t.length))}<`)
        : (csvMap(b, ([h, first, ...rest]) => [
            h,
            first.map((c) => c.repeat(Math.ceil(MB / (c.length || 1)))),
            ...rest,
          ]) ??
          mapJson(b, (doc) => {
            const all = strings(doc);
            const longest = all.sort((x, y) => y.get().length - x.get().length)[0];
            longest?.set(longest.get().repeat(Math.ceil(MB / (longest.get().length || 1))));
            return doc;
          })),
  },
  // text
  { name: 'BOM', keepsCount: true, apply: (b) => `\uFEFF${b.text.replace(/^\uFEFF/, '')}` },
  { name: 'CRLF', keepsCount: true, apply: (b) => b.text.replace(/\r?\n/g, '\r\n') },
  {
    name: 'BOM and CRLF',
    keepsCount: true,
    apply: (b) => `\uFEFF${b.text.replace(/^\uFEFF/, '').replace(/\r?\n/g, '\r\n')}`,
  },
  {
    name: 'one very long line',
    keepsCount: true,
    apply: (b) =>
      b.kind === 'json'
        ? JSON.stringify(JSON.parse(b.text.replace(/^\uFEFF/, '')))
        : b.kind === 'xml'
          ? b.text.replace(/>\s*\r?\n\s*</g, '><')
          : null,
  },
  { name: 'Unicode in every field', apply: (b, r) => withStrings(b, (s) => `${s} Ωß漢字🙂 ${s}`, r) },
  { name: 'right-to-left marks', apply: (b, r) => withStrings(b, (s) => `${RTL}${s}`, r) },
  {
    name: 'NUL bytes',
    apply: (b, r) => {
      let t = b.text;
      for (let i = 0; i < 5; i++) {
        const at = Math.floor(r() * t.length);
        t = `${t.slice(0, at)}\0${t.slice(at)}`;
      }
      return t;
    },
  },
  { name: 'NUL in every field', apply: (b, r) => withStrings(b, (s) => `${s}\0${s}`, r) },
  { name: 'lone surrogates', apply: (b, r) => withStrings(b, (s) => `${s}\ud800`, r) },
  // structure
  {
    name: 'truncated',
    apply: (b, r) => b.text.slice(0, Math.max(1, Math.floor(r() * b.text.length))),
  },
  {
    name: 'missing fields',
    apply: (b, r) =>
      mapJson(b, (doc) => {
        const all = strings(doc);
        for (let i = 0; i < 10 && all.length; i++) all[Math.floor(r() * all.length)].del();
        return doc;
      }) ?? csvMap(b, (rows) => rows.map((row) => row.filter((_, i) => i !== Math.floor(r() * row.length)))),
  },
  {
    name: 'wrong types',
    apply: (b, r) =>
      mapJson(b, (doc) => {
        const all = strings(doc);
        const odd = [42, null, true, {}, [], -1.5, { a: 1 }, ['x']];
        for (let i = 0; i < 20 && all.length; i++) all[Math.floor(r() * all.length)].set(odd[i % odd.length]);
        return doc;
      }),
  },
  {
    name: 'duplicate ids',
    apply: (b) =>
      mapJson(b, (doc) => {
        const a = longestArray(doc);
        if (a?.length) a.push(JSON.parse(JSON.stringify(a[0])), JSON.parse(JSON.stringify(a[0])));
        return doc;
      }) ?? csvMap(b, ([h, first, ...rest]) => [h, first, first, ...rest]),
  },
  {
    name: 'deep nesting',
    apply: (b) => {
      const deep = '['.repeat(100_000) + ']'.repeat(100_000);
      if (b.kind === 'json')
        return b.text.replace(
          /^(\uFEFF?\s*[[{])/,
          `$1${b.text.trimStart().startsWith('[') ? `${deep},` : `"deep": ${deep},`}`,
        );
      if (b.kind === 'xml')
        return b.text.replace(/(<[A-Za-z][^>]*>)/, `$1${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}`);
      return null;
    },
  },
  // CSV layout
  { name: 'CSV ; delimiter', keepsCount: true, apply: (b) => csvMap(b, (rows) => rows, ';') },
  { name: 'CSV tab delimiter', keepsCount: true, apply: (b) => csvMap(b, (rows) => rows, '\t') },
  {
    name: 'CSV quoted newlines',
    keepsCount: true,
    apply: (b) =>
      csvMap(b, ([h, ...rows]) => [
        h,
        ...rows.map((r) => r.map((c, i) => (i === r.length - 1 ? `${c}\nline two\r\nthree` : c))),
      ]),
  },
  {
    name: 'CSV repeated header',
    apply: (b) => csvMap(b, ([h, ...rows]) => [h, ...rows.slice(0, 1), h, ...rows.slice(1)]),
  },
  {
    name: 'CSV extra columns',
    keepsCount: true,
    apply: (b) => csvMap(b, (rows) => rows.map((r, i) => (i ? [...r, 'extra', ''] : r))),
  },
  {
    name: 'CSV missing columns',
    apply: (b) => csvMap(b, ([h, ...rows]) => [h, ...rows.map((r) => r.slice(0, Math.max(1, r.length - 2)))]),
  },
];

// ---- the run

const random = mulberry32(SEED);

/** The (file, mutation) pairs of this mode; a mutation's bytes are made when it runs. */
function cases(): { base: Base; mutation: Mutation }[] {
  const all: { base: Base; mutation: Mutation }[] = [];
  for (const base of baseFiles())
    for (const mutation of MUTATIONS) if (FULL || !mutation.fullOnly) all.push({ base, mutation });
  return FULL ? all : sample(all, SAMPLE);
}

function sample<T>(items: T[], k: number): T[] {
  if (k >= items.length) return items;
  const picked = new Set<number>();
  while (picked.size < k) picked.add(Math.floor(random() * items.length));
  return [...picked].sort((x, y) => x - y).map((i) => items[i]!);
}

/** Text that only a database driver or a stack trace writes. */
const MACHINE_TEXT =
  /QueryFailedError|SQLSTATE|violates|duplicate key|invalid byte sequence|syntax error at or near|relation "|ERROR:|TypeError|RangeError|Cannot read propert|undefined|\[object |\n\s+at /;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const originalCounts = new Map<string, number | null>();
async function originalCount(base: Base): Promise<number | null> {
  if (!originalCounts.has(base.name)) {
    const n = await parseReportFile(Buffer.from(base.text)).then(
      (p) => p.findings.length,
      () => null,
    );
    originalCounts.set(base.name, n);
  }
  return originalCounts.get(base.name)!;
}

async function totals(): Promise<{ reports: number; findings: number }> {
  const [row] = await db.dataSource.query(
    `SELECT (SELECT count(*) FROM reports)::int AS reports, (SELECT count(*) FROM findings)::int AS findings`,
  );
  return row;
}

test(
  `every mutation imports or is refused with a sentence (${MODE})`,
  async () => {
    const run = cases();
    const problems: string[] = [];
    let imported = 0;
    let refused = 0;
    let ran = 0;
    for (const { base, mutation } of run) {
      const bytes = mutation.apply(base, random);
      if (bytes === null) continue;
      ran++;
      const what = `${mutation.name} of ${base.name}`;
      const before = await totals();
      let outcome;
      try {
        outcome = await importReport(db.dataSource, {
          filename: path.basename(base.name),
          bytes: Buffer.from(bytes),
        });
      } catch (e) {
        problems.push(`${what}: threw ${(e as Error).message}`);
        continue;
      }
      if (outcome.ok) {
        imported++;
        const [r] = await db.dataSource.query(
          `SELECT finding_count, (SELECT count(*) FROM findings WHERE report_id = $1)::int AS stored FROM reports WHERE id = $1`,
          [outcome.reportId],
        );
        if (r.finding_count !== outcome.findingCount || r.stored !== outcome.findingCount)
          problems.push(
            `${what}: finding_count ${r.finding_count}, stored ${r.stored}, outcome ${outcome.findingCount}`,
          );
        const original = mutation.keepsCount ? await originalCount(base) : null;
        if (original !== null && original !== outcome.findingCount)
          problems.push(`${what}: ${outcome.findingCount} findings, the original has ${original}`);
        // Archived, so a later mutation with the same canonical content is imported, not refused as a duplicate.
        await setReportArchived(db.dataSource.manager, outcome.reportId, true);
      } else {
        refused++;
        if (!outcome.error || outcome.error.length > 1_000 || MACHINE_TEXT.test(outcome.error))
          problems.push(`${what}: refused with machine text: ${outcome.error.slice(0, 300)}`);
        // An error id means no parser located the fault: the database refused the content, or the importer broke.
        if (/\(error id [0-9a-f]{6}\)$/.test(outcome.error))
          problems.push(`${what}: not located by the importer: ${outcome.error}`);
        if (mutation.keepsCount && (await originalCount(base)) !== null && outcome.code !== 'DUPLICATE')
          problems.push(`${what}: refused (${outcome.error.slice(0, 200)}) though the original imports`);
        const after = await totals();
        if (after.reports !== before.reports || after.findings !== before.findings)
          problems.push(
            `${what}: refused but wrote ${after.reports - before.reports} report(s), ${after.findings - before.findings} finding(s)`,
          );
      }
    }
    console.log(`import robustness (${MODE}): ${ran} mutations, ${imported} imported, ${refused} refused`);
    expect(problems).toEqual([]);
  },
  FULL ? 3_600_000 : 300_000,
);
