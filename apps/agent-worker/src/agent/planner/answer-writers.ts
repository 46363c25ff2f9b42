import type { ListedGroups, OperatorLanguage, ScanComparison } from '@corpus-chat/contracts';
import { md } from './answer-text';
import {
  breakdownAnswer,
  countAnswer,
  detailAnswer,
  followUpNote,
  overviewAnswer,
  reportCountAnswer,
  reportListAnswer,
  reportsWithAnswer,
  scopedCountAnswer,
  topAnswer,
} from './answer-writer';
import {
  NO_PREVIOUS_ANSWER,
  outOfScopeAnswer,
  reportHintAnswer,
  tooLongAnswer,
  unsupportedAnswer,
} from './answer-refusals';
import {
  ruBreakdownAnswer,
  ruCountAnswer,
  ruDetailAnswer,
  ruFollowUpNote,
  ruOverviewAnswer,
  ruReportCountAnswer,
  ruReportListAnswer,
  ruReportsWithAnswer,
  ruScopedCountAnswer,
  ruTopAnswer,
} from './answer-writer-ru';
import {
  RU_NO_PREVIOUS_ANSWER,
  ruComparisonAnswer,
  ruOutOfScopeAnswer,
  ruReportHintAnswer,
  ruShareAnswer,
  ruTooLongAnswer,
  ruUnsupportedAnswer,
} from './answer-refusals-ru';
import { comparisonAnswer, type ComparisonPlan } from './scan-comparison';
import { shareAnswer } from './share-answer';
import { ruCount } from './russian-words';

/** Every text the planner answers with, in one language: the same facts, worded for the operator. */
export interface AnswerWriter {
  count: typeof countAnswer;
  scopedCount: typeof scopedCountAnswer;
  top: typeof topAnswer;
  breakdown: typeof breakdownAnswer;
  reportCount: typeof reportCountAnswer;
  reportList: typeof reportListAnswer;
  reportsWith: typeof reportsWithAnswer;
  overview: typeof overviewAnswer;
  detail: typeof detailAnswer;
  outOfScope: typeof outOfScopeAnswer;
  tooLong: typeof tooLongAnswer;
  noPrevious: string;
  unsupported: typeof unsupportedAnswer;
  reportHint: typeof reportHintAnswer;
  followUpNote: typeof followUpNote;
  comparison(plan: ComparisonPlan, c: ScanComparison): string;
  share: typeof shareAnswer;
  /** A tool failed (`error` is its message): no number. */
  failed(error: string): string;
  comparisonFailed(error: string): string;
  noSuchFinding(id: number): string;
  /** "Show the third one" when the previous answer listed `shown` findings. */
  fewerFindings(shown: number): string;
  fewerGroups(listed: ListedGroups): string;
  titleNotFilter(label: string): string;
  fromRanking(label: string): string;
  unknownReport(name: string): string;
  listOneSeverity: string;
  /** A word the vocabulary does not know (a product, a library, a CVE), searched as text. */
  searchedText(term: string): string;
}

const ENGLISH: AnswerWriter = {
  searchedText: (term) =>
    `"${md(term)}" is not a severity, format, status or report I know, so I searched the findings' text for '${md(term)}'.`,
  count: countAnswer,
  scopedCount: scopedCountAnswer,
  top: topAnswer,
  breakdown: breakdownAnswer,
  reportCount: reportCountAnswer,
  reportList: reportListAnswer,
  reportsWith: reportsWithAnswer,
  overview: overviewAnswer,
  detail: detailAnswer,
  outOfScope: outOfScopeAnswer,
  tooLong: tooLongAnswer,
  noPrevious: NO_PREVIOUS_ANSWER,
  unsupported: unsupportedAnswer,
  reportHint: reportHintAnswer,
  followUpNote,
  comparison: (plan, c) => comparisonAnswer(plan, c, md),
  share: shareAnswer,
  failed: (error) => `I could not get that number: ${md(error)}`,
  comparisonFailed: (error) => `I did not compare them: ${md(error)}`,
  noSuchFinding: (id) => `There is no finding with id ${id} (finding_detail found none).`,
  fewerFindings: (shown) =>
    `The previous answer showed ${shown === 1 ? 'one finding' : 'fewer findings than that'}; ask for a finding by its id, for example "show finding" followed by the id.`,
  fewerGroups: (listed) =>
    `The previous answer listed ${listed.groups.length === 1 ? 'one' : 'fewer'} ${listed.groupBy === 'cwe' ? 'CWE ids' : `${listed.groupBy}s`} than that; ask about one by name.`,
  titleNotFilter: (label) =>
    `I can't count the findings of ${md(label)} exactly: a finding title is not a filter the tools take. Ask "how many findings mention …" with its words instead.`,
  fromRanking: (label) => `From the previous ranking, ${md(label)}:`,
  unknownReport: (name) => `Note: no report named ${md(name)} was found, so nothing matches it.`,
  listOneSeverity:
    'To list the findings themselves, ask for one severity at a time (the search tool takes one severity).',
};

const RUSSIAN: AnswerWriter = {
  searchedText: (term) =>
    `«${md(term)}» — не серьёзность, формат, статус или отчёт из словаря, поэтому я искал '${md(term)}' в тексте находок.`,
  count: ruCountAnswer,
  scopedCount: ruScopedCountAnswer,
  top: ruTopAnswer,
  breakdown: ruBreakdownAnswer,
  reportCount: ruReportCountAnswer,
  reportList: ruReportListAnswer,
  reportsWith: ruReportsWithAnswer,
  overview: ruOverviewAnswer,
  detail: ruDetailAnswer,
  outOfScope: ruOutOfScopeAnswer,
  tooLong: ruTooLongAnswer,
  noPrevious: RU_NO_PREVIOUS_ANSWER,
  unsupported: ruUnsupportedAnswer,
  reportHint: ruReportHintAnswer,
  followUpNote: ruFollowUpNote,
  comparison: ruComparisonAnswer,
  share: ruShareAnswer,
  failed: (error) => `Не удалось получить это число: ${md(error)}`,
  comparisonFailed: (error) => `Сравнить не удалось: ${md(error)}`,
  noSuchFinding: (id) => `Находки с номером ${id} нет (finding_detail ничего не нашёл).`,
  fewerFindings: (shown) =>
    `В предыдущем ответе ${shown === 1 ? 'была показана одна находка' : 'было показано меньше находок'}; спросите находку по номеру, например «покажи находку» и номер.`,
  fewerGroups: (listed) =>
    `В предыдущем ответе ${listed.groups.length === 1 ? 'была одна позиция' : `было ${ruCount(listed.groups.length, { one: 'позиция', few: 'позиции', many: 'позиций' })}`}; спросите об одной по имени.`,
  titleNotFilter: (label) =>
    `Не могу точно посчитать находки «${md(label)}»: заголовок находки — не фильтр инструментов. Спросите «сколько находок упоминают …» с его словами.`,
  fromRanking: (label) => `Из предыдущего рейтинга, ${md(label)}:`,
  unknownReport: (name) => `Примечание: отчёт ${md(name)} не найден, поэтому ему ничего не соответствует.`,
  listOneSeverity:
    'Чтобы перечислить сами находки, спрашивайте по одной серьёзности (поиск принимает одну серьёзность).',
};

const WRITERS: Record<OperatorLanguage, AnswerWriter> = { en: ENGLISH, ru: RUSSIAN };

/** The writer for a turn's language (`en` when the turn names none). */
export const answerWriter = (language: OperatorLanguage = 'en'): AnswerWriter => WRITERS[language] ?? ENGLISH;
