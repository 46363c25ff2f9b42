import type { DataSource, EntityManager } from 'typeorm';
import {
  TOOL_DEFINITIONS,
  type CorpusOverview,
  type CountFindingsByResult,
  type FindingDetailResult,
  type FindingFilter,
  type ReportSummary,
  type ScanComparison,
  type SearchFindingsResult,
  type ToolArgsMap,
  type ToolCardData,
  type ToolName,
} from '@corpus-chat/contracts';
import { CorpusUnavailableError, type CorpusQueryFns, type ReadOnlyRunner } from './corpus-queries.port';
import { ToolArgsValidator, isToolName, shownToolName } from './tool-args.validator';
import {
  describeFilter,
  formatComparison,
  formatCount,
  formatDetail,
  formatOverview,
  formatReports,
  formatSearch,
  plainFilter,
  type FormattedToolResult,
} from './tool-format';

/** `TOOL_DEFINITIONS` in OpenAI `tools` format, built once (they go into every model request). */
const OPENAI_TOOL_DEFINITIONS = TOOL_DEFINITIONS.map((d) => ({
  type: 'function' as const,
  function: { name: d.name, description: d.description, parameters: d.parameters },
}));

/** What each tool's query function returns. */
export interface ToolResultMap {
  get_corpus_overview: CorpusOverview;
  search_findings: SearchFindingsResult;
  count_findings_by: CountFindingsByResult;
  list_all_reports: ReportSummary[];
  finding_detail: FindingDetailResult;
  compare_reports: ScanComparison;
}

interface ToolExecutionBase {
  /** The tool's name as the caller asked for it (may be unknown to us when `ok` is false). */
  name: string;
  /** Arguments as validated (defaults applied) or, when invalid, as received. */
  args: unknown;
  /** One line for the UI: `search_findings: 37 findings (showing 37) for text='SQL injection'`. */
  summary: string;
  /** Bounded data for the UI card. */
  data?: ToolCardData;
  /** Compact JSON text for the model's `tool` message. */
  modelContent: string;
}

/** A successful call, with the typed result the planner writes its answer from. */
export type ToolSuccess<N extends ToolName = ToolName> = N extends ToolName
  ? ToolExecutionBase & {
      ok: true;
      name: N;
      /** The exact number the call counted, and what it counted (`FormattedToolResult`). */
      total: number;
      filterDescription: string;
      args: ToolArgsMap[N];
      result: ToolResultMap[N];
      /** The finding filter the call applied (search and count), for follow-ups. */
      filter?: FindingFilter;
      /** Finding ids the call returned, in order, for "show the first one". */
      findingIds?: number[];
    }
  : never;

/** A refused or failed call: `error` says what was wrong (sent to the model as the tool result). */
export type ToolFailure = ToolExecutionBase & { ok: false; error: string; invalidArgs: boolean };

export type ToolExecution = ToolSuccess | ToolFailure;

/**
 * The read-only corpus tools, for the agent and the MCP server: each call validates its arguments,
 * runs one query in a read-only transaction and formats the result typed, as compact JSON for the
 * model, and as a summary with card data for the UI. `execute` returns `ok: false` rather than
 * throw, except when `signal` is already aborted.
 */
export class CorpusTools {
  private readonly validator = new ToolArgsValidator();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queries: CorpusQueryFns,
    private readonly runReadOnly: ReadOnlyRunner,
  ) {}

  /** The tool definitions in OpenAI `tools` format: the same array on every call (callers must not change it). */
  definitions(): {
    type: 'function';
    function: { name: string; description: string; parameters: Record<string, unknown> };
  }[] {
    return OPENAI_TOOL_DEFINITIONS;
  }

  /** Validates and runs one tool call. `rawArgs` is an object or the JSON text a model sent. */
  async execute(name: string, rawArgs: unknown, signal?: AbortSignal): Promise<ToolExecution> {
    signal?.throwIfAborted();
    const check = this.validator.check(name, rawArgs);
    if (!check.ok) {
      return {
        ok: false,
        name,
        args: rawArgs,
        error: check.message,
        invalidArgs: true,
        // The card shows what was wrong, as the model was told (cut: a summary is one line).
        summary: (isToolName(name)
          ? `${name}: invalid arguments: ${check.problem}`
          : `no such tool: the model asked for '${shownToolName(name)}', which is not one of the corpus tools; nothing was run`
        ).slice(0, 200),
        modelContent: JSON.stringify({ error: check.message }),
      };
    }
    try {
      return await this.run(check.name, check.args as never, signal);
    } catch (e) {
      signal?.throwIfAborted();
      if (e instanceof CorpusUnavailableError) throw e;
      const message = `${check.name} failed: ${(e as Error).message}`;
      return {
        ok: false,
        name: check.name,
        args: check.args,
        error: message,
        invalidArgs: false,
        summary: message.slice(0, 200),
        modelContent: JSON.stringify({ error: message }),
      };
    }
  }

  private async run<N extends ToolName>(
    name: N,
    args: ToolArgsMap[N],
    signal: AbortSignal | undefined,
  ): Promise<ToolSuccess> {
    const q = this.queries;
    const ro = <T>(fn: (m: EntityManager) => Promise<T>) => this.runReadOnly<T>(this.dataSource, fn, signal);
    const done = <M extends ToolName>(
      n: M,
      a: ToolArgsMap[M],
      result: ToolResultMap[M],
      f: FormattedToolResult,
      extra: Partial<ToolSuccess<M>> = {},
    ) =>
      ({
        ok: true,
        name: n,
        args: a,
        result,
        total: f.total,
        filterDescription: f.filter,
        summary: f.summary,
        data: f.data,
        modelContent: JSON.stringify(f.model),
        ...extra,
      }) as ToolSuccess;

    switch (name) {
      case 'get_corpus_overview': {
        const r = await ro((m) => q.corpusOverview(m));
        return done('get_corpus_overview', args as ToolArgsMap['get_corpus_overview'], r, formatOverview(r));
      }
      case 'search_findings': {
        const a = args as ToolArgsMap['search_findings'];
        const r = await ro((m) => q.searchFindings(m, a));
        return done('search_findings', a, r, formatSearch(r), {
          filter: plainFilter(r.filter),
          findingIds: r.rows.map((row) => row.id),
        });
      }
      case 'count_findings_by': {
        const a = args as ToolArgsMap['count_findings_by'];
        const r = await ro((m) => q.countFindingsBy(m, { groupBy: a.groupBy, filter: a.filter ?? {} }));
        return done('count_findings_by', a, r, formatCount(r), { filter: plainFilter(r.filter) });
      }
      case 'list_all_reports': {
        const a = args as ToolArgsMap['list_all_reports'];
        const r = await ro((m) => q.listReports(m, { includeArchived: a.includeArchived ?? false }));
        return done('list_all_reports', a, r, formatReports(r, a.includeArchived ?? false));
      }
      case 'finding_detail': {
        const a = args as ToolArgsMap['finding_detail'];
        const r = await ro((m) => q.findingDetail(m, a.id));
        return done('finding_detail', a, r, formatDetail(r), r.found ? { findingIds: [r.finding.id] } : {});
      }
      case 'compare_reports': {
        const a = args as ToolArgsMap['compare_reports'];
        const r = await ro((m) => q.compareReports(m, a));
        return done('compare_reports', a, r, formatComparison(r), {
          findingIds: r.newFindings.map((f) => f.id),
        });
      }
    }
    throw new Error(`unhandled tool ${String(name)}`);
  }
}

export { describeFilter };
