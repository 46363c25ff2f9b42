/**
 * The planner's tool calls (through the turn's `TurnRecorder`, so recorded like a model's) and the
 * counts it computes from several exact ones.
 */
import type { ToolFailure, ToolSuccess } from '@corpus-chat/corpus-queries';
import {
  SEVERITIES,
  type AppliedFilter,
  type ComputedScope,
  type CountFindingsByResult,
  type CountGroup,
  type FindingFilter,
  type GroupByKey,
  type Severity,
  type ToolArgsMap,
  type ToolName,
} from '@corpus-chat/contracts';
import type { TurnRecorder } from '../turn-recorder';

/** A count the planner computed from several exact counts (see `scopedCount`). */
export interface ScopedCount {
  total: number;
  /** The base filter as the query layer applied it (report file name resolved, text widened). */
  filter: AppliedFilter;
  scope: ComputedScope;
  /** Per severity counted: matches of the filter, and of the filter plus the exclusion (when one is set). */
  bySeverity?: { severity: Severity; count: number; excluded: number }[];
  /** For `scope.has`: findings matching the filter, and those of them without any CWE id / verdict. */
  presence?: { all: number; none: number };
}

/** A tool failed: the answer says so (no number). */
export class ToolFailed extends Error {
  constructor(readonly failure: ToolFailure) {
    super(failure.error);
  }
}

export const call = <N extends ToolName>(rec: TurnRecorder, name: N, args: ToolArgsMap[N]) =>
  rec.callTool(name, args) as Promise<ToolSuccess<N> | ToolFailure>;

/** A tool call that must succeed for the answer to give a number: a failure throws `ToolFailed`. */
export async function callOrFail<N extends ToolName>(rec: TurnRecorder, name: N, args: ToolArgsMap[N]) {
  const r = await call(rec, name, args);
  if (!r.ok) throw new ToolFailed(r);
  return r;
}

export const countBy = async (rec: TurnRecorder, groupBy: GroupByKey, filter: FindingFilter) =>
  (await callOrFail(rec, 'count_findings_by', { groupBy, filter })).result;

const countOf = (r: CountFindingsByResult, key: string) => r.groups.find((g) => g.key === key)?.count ?? 0;

/**
 * A count no single filter expresses, from exact `count_findings_by` results:
 * - a set of severities: the per-severity counts of the filter, added up (a finding has one severity);
 * - an exclusion: the same per-severity counts minus those of the filter plus the excluded part
 *   (the findings that also match it are a subset);
 * - with / without any CWE id or verdict: the filter's findings grouped by CWE / verdict, the `none`
 *   group or the total minus it.
 */
export async function scopedCount(
  rec: TurnRecorder,
  filter: FindingFilter,
  scope: ComputedScope,
): Promise<ScopedCount> {
  if (scope.has) {
    const r = await countBy(rec, scope.has.key, filter);
    const none = countOf(r, 'none');
    return {
      total: scope.has.present ? r.total - none : none,
      filter: r.filter,
      scope,
      presence: { all: r.total, none },
    };
  }
  const all = await countBy(rec, 'severity', filter);
  const minus = scope.exclude ? await countBy(rec, 'severity', { ...filter, ...scope.exclude }) : undefined;
  const set: readonly Severity[] = scope.severities ?? (filter.severity ? [filter.severity] : SEVERITIES);
  const bySeverity = SEVERITIES.filter((s) => set.includes(s)).map((severity) => ({
    severity,
    count: countOf(all, severity),
    excluded: minus ? countOf(minus, severity) : 0,
  }));
  return {
    total: bySeverity.reduce((n, r) => n + r.count - r.excluded, 0),
    filter: all.filter,
    scope,
    bySeverity,
  };
}

/**
 * Grouped counts (by report, CWE, verdict or severity) over a set of severities and/or minus an
 * exclusion: one `count_findings_by` per severity (severities are disjoint, so counts add up per
 * group), minus the same with the excluded part. Groups keep the query layer's order: count, then label.
 */
export async function scopedGroups(
  rec: TurnRecorder,
  groupBy: GroupByKey,
  filter: FindingFilter,
  scope: ComputedScope,
): Promise<CountFindingsByResult> {
  const perSeverity: (Severity | undefined)[] =
    groupBy === 'severity' || !scope.severities ? [undefined] : [...scope.severities];
  const groups = new Map<string, CountGroup>();
  let total = 0;
  let applied: CountFindingsByResult['filter'] | undefined;
  for (const severity of perSeverity) {
    const f = severity ? { ...filter, severity } : filter;
    const plus = await countBy(rec, groupBy, f);
    applied ??= plus.filter;
    const minus = scope.exclude ? await countBy(rec, groupBy, { ...f, ...scope.exclude }) : undefined;
    for (const g of plus.groups) {
      if (groupBy === 'severity' && scope.severities && !scope.severities.includes(g.key as Severity))
        continue;
      const cur = groups.get(g.key) ?? { key: g.key, label: g.label, count: 0 };
      cur.count += g.count - (minus ? countOf(minus, g.key) : 0);
      groups.set(g.key, cur);
    }
    if (groupBy !== 'severity') total += plus.total - (minus?.total ?? 0);
  }
  if (groupBy === 'severity') total = [...groups.values()].reduce((n, g) => n + g.count, 0);
  const sorted = [...groups.values()]
    .filter((g) => g.count > 0 || groupBy === 'severity' || groupBy === 'verdict')
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  const { severity: _dropped, ...base } = applied ?? filter;
  return { groupBy, total, groups: sorted, filter: base };
}
