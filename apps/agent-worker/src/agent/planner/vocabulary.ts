import damerauLevenshtein from 'damerau-levenshtein';
import type { GroupByKey, ReportFormat, Severity, TriageStatus, VerdictStatus } from '@corpus-chat/contracts';

/** Words meaning "finding" (the subject of most questions). */
export const FINDING_NOUNS = new Set([
  'finding', 'findings', 'issue', 'issues', 'vulnerability', 'vulnerabilities', 'vuln', 'vulns', 'bug', 'bugs', 'alert', 'alerts',
  'result', 'results', 'problem', 'problems', 'weakness', 'weaknesses', 'item', 'items', 'entries', 'entry', 'hits', 'hit', 'flaws', 'flaw', 'one', 'ones',
]);
export const REPORT_NOUNS = new Set(['report', 'reports', 'scan', 'scans', 'file', 'files', 'export', 'exports']);

/**
 * Report formats as operators name them (IMPORT-RULES.md format ids): "the Burp Suite reports",
 * "the trivy scans". A format word is a filter on the report's detected format, never on file names.
 */
export const FORMAT_WORDS: Record<string, ReportFormat> = {
  sarif: 'sarif', zap: 'zap', owasp_zap: 'zap', nuclei: 'nuclei', trivy: 'trivy', burp: 'burp', nessus: 'nessus', tenable: 'nessus', csv: 'csv',
};
/** Words meaning "format" in "which report format has the most …". */
export const FORMAT_NOUNS = new Set(['format', 'formats']);
/** Words asking for a share of a whole: "what percentage of findings are critical?". */
export const SHARE_WORDS = new Set(['percentage', 'percent', 'share', 'proportion', 'fraction', 'ratio']);
/** Words that make a "most …" question about finding titles ("the most common vulnerability"). */
export const FREQUENCY_WORDS = new Set(['common', 'commonest', 'frequent', 'prevalent', 'often', 'frequently', 'widespread', 'popular', 'recurring']);
export const CWE_NOUNS = new Set(['cwe', 'cwes', 'cwe-id', 'cwe-ids']);

/** Severity words (CVSS 3.1 qualitative scale names and common variants) → severity. */
export const SEVERITY_WORDS: Record<string, Severity> = {
  critical: 'critical', criticals: 'critical', crit: 'critical', crits: 'critical',
  high: 'high', highs: 'high',
  medium: 'medium', mediums: 'medium', med: 'medium', moderate: 'medium', moderates: 'medium',
  low: 'low', lows: 'low',
  info: 'info', informational: 'info', informative: 'info', infos: 'info', none: 'info',
};

/**
 * Verdict words → verdict. `open` counts only after `still` (handled by the parser).
 *
 * Verdict or triage status: "fixed" and "open" name both. A question naming "verdict" or "retest"
 * means the latest retest verdict; one naming "status", "triage", "false positive", "confirmed" or
 * "risk accepted" means the triage status; otherwise "open" ("open findings") is the status and
 * "fixed", "still open", "unfixed" are the verdict. The answer names which one it counted
 * ("verdict fixed", "triage status open").
 */
export const VERDICT_WORDS: Record<string, VerdictStatus> = {
  fixed: 'fixed', resolved: 'fixed', remediated: 'fixed', closed: 'fixed',
  inconclusive: 'inconclusive', undecided: 'inconclusive', unclear: 'inconclusive',
  unfixed: 'still_open', 'still_open': 'still_open', 'still-open': 'still_open',
};

/** Triage status words (one token each; "false positive" and "risk accepted" are joined by the recogniser). */
export const STATUS_WORDS: Record<string, TriageStatus> = {
  confirmed: 'confirmed', false_positive: 'false_positive', risk_accepted: 'risk_accepted',
};
/** Words that make "open"/"fixed" the triage status, and those that make them the verdict. */
export const STATUS_NOUNS = new Set(['status', 'statuses', 'triage', 'triaged']);
export const VERDICT_NOUNS = new Set(['verdict', 'verdicts', 'retest', 'retests', 'retested']);

export const GROUP_WORDS: Record<string, GroupByKey> = {
  severity: 'severity', severities: 'severity', sev: 'severity', risk: 'severity', criticality: 'severity',
  report: 'report', reports: 'report', file: 'report', files: 'report', scan: 'report', scans: 'report',
  cwe: 'cwe', cwes: 'cwe', weakness: 'cwe', weaknesses: 'cwe', 'cwe-id': 'cwe', 'cwe-ids': 'cwe',
  verdict: 'verdict', verdicts: 'verdict', retest: 'verdict', status: 'status', statuses: 'status', triage: 'status',
  format: 'format', formats: 'format', title: 'title', titles: 'title',
};

export const COUNT_WORDS = new Set(['count', 'counts', 'number', 'numbers', 'total', 'tally', 'amount', 'quantity']);
export const LIST_WORDS = new Set(['list', 'show', 'display', 'enumerate', 'give', 'print', 'name', 'see', 'find', 'get', 'fetch', 'return']);
export const DETAIL_WORDS = new Set(['describe', 'detail', 'details', 'explain', 'open', 'tell', 'more', 'about', 'info', 'information', 'expand', 'view']);
export const TOP_WORDS = new Set(['most', 'top', 'highest', 'largest', 'biggest', 'greatest', 'max', 'maximum', 'leading', 'worst', 'mostly']);
export const BREAKDOWN_WORDS = new Set(['breakdown', 'break', 'distribution', 'distributed', 'split', 'grouped', 'group', 'per', 'each', 'every', 'histogram', 'spread']);
export const OVERVIEW_WORDS = new Set(['overview', 'summary', 'summarize', 'summarise', 'statistics', 'stats', 'status', 'dashboard']);
/** Words of operator edits ("re-rated", "were edited"); known, so never corrected to "related" or "rated". */
export const EDIT_WORDS = new Set([
  're-rate', 're-rated', 're-rates', 're-rating', 'rerate', 'rerated', 'rerates', 'rerating', 're-scored', 'rescored', 're-classified', 'reclassified',
  'edited', 'modified', 'changed', 'corrected', 'amended', 'adjusted', 'revised', 'updated',
]);

/** Verbs asking to change data; the planner (and every tool) only reads. */
export const WRITE_VERBS = new Set([
  'delete', 'remove', 'drop', 'erase', 'wipe', 'purge', 'truncate', 'destroy', 'clear', 'reset',
  'update', 'modify', 'change', 'edit', 'rename', 'insert', 'create', 'add', 'import', 'upload', 'archive', 'unarchive', 'restore', 'mark', 'set', 'overwrite', 'replace',
]);
export const REFERENCE_WORDS = new Set(['those', 'them', 'these', 'they', 'it', 'its', 'same', 'that', 'this', 'which', 'above', 'previous', 'earlier', 'ones']);
export const ORDINALS: Record<string, number> = {
  first: 0, '1st': 0, second: 1, '2nd': 1, third: 2, '3rd': 2, fourth: 3, '4th': 3, fifth: 4, '5th': 4,
  sixth: 5, '6th': 5, seventh: 6, '7th': 6, eighth: 7, '8th': 7, ninth: 8, '9th': 8, tenth: 9, '10th': 9, last: -1, final: -1,
};
export const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, fifteen: 15, twenty: 20,
};

/** Function words and question scaffolding: never part of a topic found by position. */
export const STOPWORDS = new Set([
  'a', 'an', 'the', 'of', 'in', 'on', 'at', 'to', 'for', 'from', 'by', 'with', 'without', 'and', 'or', 'but', 'as', 'into', 'within', 'across', 'among', 'amongst', 'between', 'over', 'under',
  'how', 'many', 'much', 'what', "what's", 'whats', 'which', 'who', 'where', 'when', 'why', 'whose', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'done',
  'have', 'has', 'had', 'having', 'there', "there's", 'here', 'we', 'our', 'us', 'you', 'your', 'i', 'me', 'my', 'it', 'its', 'they', 'them', 'their', 'those', 'these', 'this', 'that', 'than', 'then',
  'can', 'could', 'would', 'should', 'will', 'shall', 'may', 'might', 'must', 'please', 'pls', 'kindly', 'tell', 'give', 'show', 'list', 'display', 'let', 'know', 'want', 'need', 'like', 'get',
  'all', 'any', 'some', 'every', 'each', 'only', 'just', 'also', 'too', 'so', 'far', 'now', 'currently', 'current', 'right', 'altogether', 'overall', 'total', 'totals', 'in-total', 'whole', 'entire', 'corpus',
  'database', 'db', 'data', 'dataset', 'system', 'tagged', 'tag', 'tags', 'labelled', 'labeled', 'marked', 'classified', 'flagged', 'reported', 'detected', 'found', 'listed', 'recorded', 'stored', 'exist', 'exists',
  'existing', 'contain', 'contains', 'containing', 'include', 'includes', 'including', 'severity', 'severities', 'level', 'levels', 'rated', 'rating', 'priority', 'risk', 'count', 'number', 'numbers',
  'and', 'else', 'other', 'more', 'most', 'least', 'top', 'again', 'still', 'open', 'verdict', 'verdicts', 'status', 'cwe', 'cwes', 'id', 'ids', 'yes', 'no', 'ok', 'okay', 'thanks', 'thank', 'hey', 'hi', 'hello',
  'what', 'about', 'regarding', 'one', 'ones', 'first', 'second', 'third', 'last', 'same', 'above', 'previous', 'earlier', 'either', 'both', 'not', 'type', 'types', 'kind', 'kinds', 'sort', 'category', 'categories',
]);

/** Common short misspellings the edit-distance pass does not reach (it skips words under five letters). */
export const TYPO_MAP: Record<string, string> = {
  mnay: 'many', mani: 'many', hwo: 'how', hw: 'how', teh: 'the', fo: 'of', thier: 'their', waht: 'what', wich: 'which', whcih: 'which',
  hihg: 'high', hgih: 'high', hig: 'high', lwo: 'low', meduim: 'medium', mediun: 'medium', crtical: 'critical', critcal: 'critical', critial: 'critical',
  reprot: 'report', reprots: 'reports', repot: 'report', repots: 'reports', rpeort: 'report', fidning: 'finding', fidnings: 'findings', findigns: 'findings', findngs: 'findings',
  vulns: 'vulns', sev: 'severity', lsit: 'list', shwo: 'show', cuont: 'count', totla: 'total', mosst: 'most', mots: 'most', tpo: 'top', relat: 'relate', abt: 'about', abut: 'about',
};

/** Words the edit-distance pass may correct to (structure words of five letters or more). */
const FUZZY_TARGETS = [
  'findings', 'finding', 'reports', 'report', 'critical', 'criticals', 'medium', 'informational', 'severity', 'severities', 'relate', 'relates', 'related', 'relating',
  'mention', 'mentions', 'mentioning', 'mentioned', 'about', 'regarding', 'concerning', 'involving', 'breakdown', 'distribution', 'which', 'highest', 'largest', 'biggest',
  'describe', 'details', 'detail', 'verdict', 'verdicts', 'fixed', 'inconclusive', 'vulnerabilities', 'vulnerability', 'issues', 'total', 'number', 'there', 'contain', 'contains',
  'containing', 'overview', 'summary', 'summarize', 'list', 'show', 'display', 'many', 'count', 'first', 'second', 'third', 'those', 'these', 'grouped', 'delete', 'remove',
];
const FUZZY_SET = new Set(FUZZY_TARGETS);

/**
 * The structure word a possibly misspelled `word` (lower case) stands for: itself when known or
 * short, a `TYPO_MAP` entry, or the closest `FUZZY_TARGETS` word within one edit (Damerau–Levenshtein:
 * a transposition is one edit) for words of five or more letters, two edits from eight letters
 * when the first letter agrees (so a name such as "coverity" is not read as "severity").
 * Words that are known vocabulary already are never changed.
 */
export function correctWord(word: string, known: (w: string) => boolean): string {
  if (TYPO_MAP[word]) return TYPO_MAP[word];
  if (word.length < 5 || FUZZY_SET.has(word) || known(word) || /[^a-z-]/.test(word)) return word;
  const limit = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestSteps = limit + 1;
  for (const target of FUZZY_TARGETS) {
    if (Math.abs(target.length - word.length) > limit) continue;
    const steps = damerauLevenshtein(word, target).steps;
    if (steps > 1 && target[0] !== word[0]) continue;
    if (steps < bestSteps) {
      best = target;
      bestSteps = steps;
    }
  }
  return best ?? word;
}

/** Words that negate the part of the question after them ("not info", "excluding low", "non-XSS"). */
export const NEGATION_WORDS = new Set([
  'not', 'no', 'non', 'never', 'neither', 'without', 'ignoring', 'disregarding', 'omitting', 'except', 'excluding', 'exclude', 'excludes', 'excluded', 'besides', 'minus', 'outside', 'unrelated', 'lacking', 'missing',
  "aren't", 'arent', "isn't", 'isnt', "weren't", "wasn't", "don't", 'dont', "doesn't", 'doesnt', "didn't", "haven't", "hasn't", "can't", 'cannot',
]);
/** Two-word negations: "other than low", "apart from info", "all but info". */
export const NEGATION_PAIRS: string[][] = [
  ['other', 'than'], ['apart', 'from'], ['aside', 'from'], ['all', 'but'], ['rather', 'than'], ['instead', 'of'], ['not', 'counting'], ['not', 'including'], ['leaving', 'out'], ['leave', 'out'],
];

/** Words that only make sense as a time constraint ("imported last week", "since March", "in 2023"). */
export const TIME_WORDS = new Set([
  'yesterday', 'today', 'tonight', 'tomorrow', 'week', 'weeks', 'weekly', 'month', 'months', 'monthly', 'year', 'years', 'yearly', 'day', 'days', 'daily', 'hour', 'hours', 'minute', 'minutes',
  'ago', 'since', 'recent', 'recently', 'new', 'newer', 'newly', 'older', 'latest', 'newest', 'oldest', 'earliest', 'lately', 'date', 'dates', 'dated', 'weekend', 'quarter', 'q1', 'q2', 'q3', 'q4',
  'january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
]);
/** Verbs of arrival that a time phrase usually hangs on ("imported last week", "added since Monday"). */
export const ARRIVAL_VERBS = new Set(['imported', 'uploaded', 'added', 'created', 'ingested', 'scanned', 'submitted', 'received', 'opened', 'discovered', 'introduced', 'appeared', 'reported', 'detected', 'found']);
/** Words that may precede a time word inside a time phrase ("in the last 7 days", "over the past month"). */
export const TIME_GLUE = new Set(['last', 'past', 'previous', 'this', 'next', 'since', 'before', 'after', 'during', 'within', 'in', 'on', 'over', 'the', 'a', 'an', 'of', 'from', 'until', 'till', 'between', 'and', 'ago', 'most', 'few', 'couple', 'each', 'per', 'every']);

/**
 * Words a question may contain without changing what is counted (politeness, filler, how the
 * answer should be laid out). Any other word the parser did not understand is treated as a
 * constraint it could not apply.
 */
export const HARMLESS_WORDS = new Set([
  'hey', 'hi', 'hello', 'buddy', 'mate', 'folks', 'guys', 'team', 'sir', 'cheers', 'thx', 'ty', 'quick', 'quickly', 'exactly', 'precisely', 'exact', 'roughly', 'approximately', 'approx',
  'really', 'actually', 'already', 'ever', 'yet', 'even', 'well', 'hmm', 'um', 'uh', 'oh', 'so', 'btw', 'anyway', 'anyways', 'question', 'wondering', 'wonder', 'curious', 'interested',
  'broken', 'down', 'sorted', 'ordered', 'ranked', 'rank', 'ranking', 'grouped', 'organised', 'organized', 'arranged', 'listed', 'counted', 'look', 'looking', 'check', 'figure', 'out',
  'chat', 'assistant', 'bot', 'agent', 'go', 'ahead', 'sure', 'great', 'good', 'nice', 'cool', 'fine', 'alright', 'again', 'once', 'more', 'exist', 'lies', 'lie', 'stand', 'stands',
  'answer', 'reply', 'respond', 'number', 'figure', 'figures', 'stat', 'stats', 'quickly', 'briefly', 'short', 'shortly', 'simply', 'just', 'only', 'currently',
  'presently', 'loaded', 'sitting', 'present', 'known', 'available', 'seeing', 'got', 'gotten', 'getting', 'holding', 'hold', 'holds', 'carry', 'carries', 'appear', 'appears', 'showing',
  'shown', 'say', 'says', 'said', 'tell', 'telling', 'wanna', 'gonna', 'able', 'possible', 'find', 'found', 'things', 'thing', 'stuff', 'anything', 'something', 'everything', 'altogether',
  'do', 'does', 'did', 'make', 'makes', 'up', 'amount', 'amounts', 'lot', 'lots', 'plenty', 'bunch', 'deal', 'kinds', 'various', 'respectively', 'individually', 'separately', 'together', 'combined',
  'imported', 'uploaded', 'added', 'created', 'ingested', 'scanned', 'submitted', 'received', 'scanner', 'scanners', 'security', 'tool', 'tools', 'common', 'commonest', 'frequent',
  'prevalent', 'popular', 'widespread', 'often', 'frequently',
  'came', 'come', 'comes', 'coming', 'originate', 'originated', 'belong', 'belonging', 'belongs', 'sit', 'sits', 'live', 'lives', 'if', 'moment', 'whatsoever',
  'include', 'included', 'account', 'considered', 'consider', 'counting', 'summed', 'sum', 'cumulative', 'grand', 'aggregate', 'aggregated', 'full', 'complete', 'entirety',
]);
