import { SEVERITIES, type Severity } from '@corpus-chat/contracts';
import type { Scan } from './question-scan';
import { V } from './vocabulary';
import data from './vocabulary.data.json';

/** "at least X" before the severity, "X and above" after: up (more severe) or down, with X or without. */
type SeverityRange = { seq: string[]; dir: 'up' | 'down'; inclusive: boolean };
const RANGES = data.severityRanges as Record<'before' | 'after', SeverityRange[]>;
/** "high+": an empty range after the severity. */
const PLUS: SeverityRange = { seq: [], dir: 'up', inclusive: true };

const rank = (s: Severity) => SEVERITIES.indexOf(s);

/** The severity named by token `i` (`high`, `criticals`, `high+`), if that word is a severity there. */
function severityAt(s: Scan, i: number): { i: number; sev: Severity; plus: boolean } | undefined {
  const t = s.tokens[i];
  // "a severity of 'high'": a quoted severity word after "severity" is the severity, not a text search.
  const quoted =
    t.kind === 'quote' && s.words.slice(Math.max(0, i - 3), i).some((w) => V.severityQuoteLead.has(w));
  if (s.used[i] || (t.kind !== 'word' && !quoted)) return undefined;
  const plus = !quoted && t.w.endsWith('+');
  const w = quoted ? String(t.value).toLowerCase() : plus ? t.w.slice(0, -1) : t.w;
  const sev = V.severities[w];
  if (!sev) return undefined;
  const [prev, next] = [s.words[i - 1] ?? '', s.words[i + 1] ?? ''];
  const notSeverity =
    // "information disclosure", "info leak": a topic; "more info about finding 3": asking for details.
    (w.startsWith('info') && V.infoTopic.has(next)) ||
    (w === 'info' && V.moreInfo.has(prev) && V.infoAbout.has(next)) ||
    // "none" is only a severity in "severity none"; "how high", "how low" is no filter.
    (w === 'none' && prev !== 'severity') ||
    ((w === 'high' || w === 'low') && prev === 'how');
  return notSeverity ? undefined : { i, sev, plus };
}

/**
 * Every severity of the question as one set, most severe first: `criticals`, `high or critical` (a
 * finding has one severity, so "and" means both groups), `high+`, `at least high`, `from medium to
 * critical`, and negations (`non-info`, `other than low`: the complement, or the named minus the negated).
 */
export function findSeverityExpression(s: Scan): Severity[] | undefined {
  const mentions = s.words.map((_, i) => severityAt(s, i)).filter((m) => m !== undefined);
  if (!mentions.length) return undefined;

  type Mention = (typeof mentions)[number];
  const opened = (x: Mention) => /^(between|from)$/.test(s.words[x.i - 1] ?? '');
  // "between low and high", "from medium to critical", "low to high", "medium through critical".
  const range = (x: Mention, y: Mention) => {
    const [between, ...more] = s.words.slice(x.i + 1, y.i).filter((w) => !V.severitySuffix.has(w));
    const joiner = /^(to|through|thru|till|until)$/.test(between) || (between === 'and' && opened(x));
    return joiner && !more.length;
  };
  // Group mentions joined only by joiner words ("high or critical"), or as a range.
  const groups: Mention[][] = [];
  for (const m of mentions) {
    const last = groups.at(-1)?.at(-1);
    const between = last ? s.words.slice(last.i + 1, m.i) : [];
    const joined = between.every((w) => V.severityJoiner.has(w) || V.finding.has(w));
    if (last && (joined || range(last, m))) groups.at(-1)!.push(m);
    else groups.push([m]);
  }

  const positive = new Set<Severity>();
  const negated = new Set<Severity>();
  for (const g of groups) {
    const first = g[0].i;
    let last = g.at(-1)!.i;
    while (V.severitySuffix.has(s.words[last + 1])) last++;
    let members = g.map((m) => m.sev);
    let start = first;
    let end = last + 1;
    if (g.length === 2 && range(g[0], g[1])) {
      const [a, b] = [rank(g[0].sev), rank(g[1].sev)].sort((p, q) => p - q);
      members = SEVERITIES.slice(a, b + 1);
      if (opened(g[0])) start--;
    }
    // Ranges apply to a single severity ("high and above"); "high+" likewise.
    if (g.length === 1) {
      const after = g[0].plus ? PLUS : RANGES.after.find((r) => s.freeSeq(end, r.seq));
      const before = after ? undefined : RANGES.before.find((r) => s.freeSeq(first - r.seq.length, r.seq));
      const r = after ?? before;
      // The severities above ("up", more severe) or below the named one, and that one when inclusive.
      const d = (x: Severity) => (rank(x) - rank(g[0].sev)) * (r?.dir === 'up' ? -1 : 1);
      if (r) members = SEVERITIES.filter((x) => d(x) > 0 || (r.inclusive && d(x) === 0));
      end += after?.seq.length ?? 0;
      start -= before?.seq.length ?? 0;
    }
    start = s.stretchLeft(start, V.severitySuffix);
    const neg = s.claim([start, end]);
    members.forEach((x) => (neg ? negated : positive).add(x));
  }
  const base = positive.size ? [...positive] : [...SEVERITIES];
  return SEVERITIES.filter((x) => base.includes(x) && !negated.has(x));
}
