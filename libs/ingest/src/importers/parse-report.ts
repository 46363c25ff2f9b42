import crypto from 'node:crypto';
import readline from 'node:readline';
import { Readable } from 'node:stream';
import type { ImportOutcome } from '@corpus-chat/contracts';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type ParseError, parse as parseJsonc, printParseErrorCode } from 'jsonc-parser';
import { parseBurp, looksLikeBurp } from './burp.importer';
import { parseCsv } from './csv.importer';
import { failedImport } from './import-failure';
import { ImportRefusal, invalidAt, noReport, notSupportedYet, unrecognised } from './import-refusal';
import { looksLikeNative, parseNative } from './native.importer';
import { parseNessus } from './nessus.importer';
import { NucleiCollector, looksLikeNucleiResult } from './nuclei.importer';
import type { ParsedReport } from './parsed-report';
import { boundReportText } from './report-text';
import { looksLikeSarif, parseSarif } from './sarif.importer';
import { isObject } from './text';
import { parseTrivy, trivyLayout } from './trivy.importer';
import { looksLikeZapJson, parseZapJson, parseZapXml } from './zap.importer';

/** Default import size limit: 50 MB. */
export const DEFAULT_MAX_IMPORT_BYTES = 50 * 1024 * 1024;

export interface ParseOptions {
  /** Files larger than this many bytes are refused before parsing (default {@link DEFAULT_MAX_IMPORT_BYTES}). */
  maxBytes?: number;
}

/** A parsed report plus the hash that identifies its content. */
export interface ParsedFile extends ParsedReport {
  /** SHA-256 of the canonical content (JSON re-serialised, so whitespace does not make a new report). */
  contentHash: string;
}

const sha256 = (s: string): string => crypto.createHash('sha256').update(s).digest('hex');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** True when `bytes` are valid UTF-8. */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / (1024 * 1024)).toFixed(1)} MB` : `${(n / 1024).toFixed(1)} KB`;
}

/**
 * The `TOO_LARGE` refusal for a file of `byteLength` bytes, or null when it is within `maxBytes`
 * (default {@link DEFAULT_MAX_IMPORT_BYTES}). Lets callers refuse a file before reading it.
 */
export function sizeRefusal(byteLength: number, maxBytes = DEFAULT_MAX_IMPORT_BYTES): ImportRefusal | null {
  if (byteLength <= maxBytes) return null;
  return new ImportRefusal(
    'TOO_LARGE',
    `the file is ${formatBytes(byteLength)}, over the ${formatBytes(maxBytes)} import limit`,
  );
}

/** Line and column (1-based) of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, column: offset - last };
}

const JSON_ERROR_WORDS: Record<string, string> = {
  InvalidSymbol: 'invalid symbol',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'a property name (in double quotes) was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: "':' was expected",
  CommaExpected: "',' was expected",
  CloseBraceExpected: "'}' was expected",
  CloseBracketExpected: "']' was expected",
  EndOfFileExpected: 'unexpected content after the end of the JSON value',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unexpected end of comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unexpected end of number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string',
};

/**
 * Where and why `text` is not valid JSON: `JSON.parse` does not always give a position, so the
 * first error is located with jsonc-parser (strict: no comments, no trailing commas).
 */
function jsonSyntaxError(text: string, error: unknown): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return `JSON syntax error: ${error instanceof Error ? error.message : String(error)}`;
  const code = printParseErrorCode(first.error);
  const { line, column } = lineColumn(text, first.offset);
  return `JSON syntax error at line ${line}, column ${column}: ${JSON_ERROR_WORDS[code] ?? code}`;
}

/** Skips whitespace and comments before the XML declaration (IMPORT-RULES: XML files may carry them). */
function skipXmlPrologue(text: string): string {
  let rest = text.trimStart();
  while (rest.startsWith('<!--')) {
    const end = rest.indexOf('-->');
    if (end < 0) break;
    rest = rest.slice(end + 3).trimStart();
  }
  return rest;
}

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: false,
  // IMPORT-RULES, Nessus: the scan policy (most of some files) is not read, so it is not parsed either.
  stopNodes: ['NessusClientData_v2.Policy'],
});

/**
 * The validator's error in words: its "unclosed tags" message is the JSON of every open element
 * (thousands in a cut-off file), and some errors come without a column.
 */
function xmlSyntaxError(err: { code: string; msg: string; line: number; col?: number }): string {
  const where = `XML syntax error at line ${err.line}${err.col ? `, column ${err.col}` : ''}`;
  const open = /^Invalid '(\[.*\])' found/.exec(err.msg);
  if (!open) return `${where}: ${err.msg}`;
  let names: string[] = [];
  try {
    names = [...new Set(JSON.parse(open[1]) as string[])];
  } catch {
    names = [];
  }
  const listed = names
    .slice(0, 3)
    .map((n) => `<${n}>`)
    .join(', ');
  return `the XML ends before ${listed || 'every element'} ${names.length > 1 ? 'are' : 'is'} closed (is the file cut short?)`;
}

function parseXml(text: string): ParsedFile {
  const xml = skipXmlPrologue(text);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw invalidAt('', xmlSyntaxError(valid.err));
  let doc: Record<string, unknown>;
  try {
    doc = xmlParser.parse(xml) as Record<string, unknown>;
  } catch (e) {
    throw invalidAt('', `XML could not be read: ${(e as Error).message}`);
  }
  const rootName = Object.keys(doc).find((k) => !k.startsWith('?') && !k.startsWith('#'));
  if (!rootName) throw noReport();
  const root = doc[rootName];
  const contentHash = sha256(text);
  switch (rootName) {
    case 'OWASPZAPReport':
      return { ...parseZapXml(isObject(root) ? root : {}), contentHash };
    case 'issues':
      if (!looksLikeBurp(root))
        throw unrecognised(
          'XML with root element <issues> that has neither a burpVersion attribute nor issue elements',
        );
      return { ...parseBurp(root), contentHash };
    case 'NessusClientData_v2':
      return { ...parseNessus(root), contentHash };
    case 'NessusClientData':
      throw new ImportRefusal(
        'UNSUPPORTED_VERSION',
        'format Nessus v1 is not supported (export the scan as .nessus v2)',
      );
    default:
      throw unrecognised(`XML with root element <${rootName}> is not a report format this importer reads`);
  }
}

function parseJsonDocument(doc: unknown): ParsedReport {
  if (doc === null || (Array.isArray(doc) && doc.length === 0)) throw noReport();
  if (Array.isArray(doc)) {
    const layout = trivyLayout(doc);
    if (layout) return parseTrivy(doc, layout);
    if (looksLikeNucleiResult(doc[0])) {
      const c = new NucleiCollector();
      doc.forEach((r, i) => c.add(r, `[${i}]`));
      return c.report();
    }
    throw unrecognised('a JSON array whose entries are neither Nuclei results nor Trivy targets');
  }
  if (!isObject(doc)) throw unrecognised(`a JSON ${typeof doc} is not a report`);
  if (looksLikeNative(doc)) return parseNative(doc);
  if (looksLikeSarif(doc)) return parseSarif(doc);
  if (looksLikeZapJson(doc)) return parseZapJson(doc);
  const layout = trivyLayout(doc);
  if (layout) return parseTrivy(doc, layout);
  if (looksLikeNucleiResult(doc)) {
    const c = new NucleiCollector();
    c.add(doc, '(document)');
    return c.report();
  }
  const keys = Object.keys(doc).slice(0, 5);
  throw unrecognised(
    `a JSON object with keys ${keys.length ? keys.map((k) => `"${k}"`).join(', ') : '(none)'} matches no supported format`,
  );
}

/** Reads JSON Lines with a streaming line reader; every non-blank line must be a Nuclei result. */
async function parseJsonLines(text: string): Promise<ParsedFile> {
  const lines = readline.createInterface({ input: Readable.from([text]), crlfDelay: Infinity });
  const collector = new NucleiCollector();
  const canonical: string[] = [];
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw invalidAt(`line ${n}`, jsonSyntaxError(line, e).replace(/ at line 1, column/, ' at column'));
    }
    if (canonical.length === 0 && !looksLikeNucleiResult(value)) {
      throw unrecognised(`JSON Lines whose first entry (line ${n}) is not a Nuclei result`);
    }
    collector.add(value, `line ${n}`);
    canonical.push(JSON.stringify(value));
  }
  if (canonical.length === 0) throw noReport();
  return { ...collector.report(), contentHash: sha256(canonical.join('\n')) };
}

/**
 * Parses one file into a report without touching the database; the format comes from the content,
 * never the extension, and text is bounded by `boundReportText`.
 *
 * @throws ImportRefusal `TOO_LARGE`, `EMPTY`, `UNSUPPORTED_FORMAT` (PDFs go through
 *   `pdf-reports/`), `UNRECOGNISED_FORMAT`, `UNSUPPORTED_VERSION` or `INVALID`.
 */
export async function parseReportFile(bytes: Uint8Array, options: ParseOptions = {}): Promise<ParsedFile> {
  try {
    // Every format ends here, so text is bounded once for all of them.
    return boundReportText(await parseContent(bytes, options));
  } catch (e) {
    // The readers recurse over the document: a file nested thousands of levels deep ends the stack.
    if (e instanceof RangeError && /call stack/.test(e.message))
      throw invalidAt('', 'the file nests its elements too deeply to be read (thousands of levels)');
    throw e;
  }
}

/** The parsing half of `importReport`: the parsed file, or the refusal as an outcome. Never throws. */
export async function parseForImport(
  name: string,
  bytes: Uint8Array,
  options: ParseOptions = {},
): Promise<ParsedFile | ImportOutcome> {
  try {
    return await parseReportFile(bytes, options);
  } catch (e) {
    if (e instanceof ImportRefusal) return { ok: false, file: name, code: e.code, error: e.message };
    // A parser bug, not a fault the parser located: its message means nothing to the operator.
    return failedImport(name, e, 'the importer failed to read the file', 'INVALID');
  }
}

/** `text` as JSON, or undefined when it is not JSON. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function parseContent(bytes: Uint8Array, options: ParseOptions): Promise<ParsedFile> {
  const tooLarge = sizeRefusal(bytes.byteLength, options.maxBytes);
  if (tooLarge) throw tooLarge;
  let buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
  if (buf.subarray(0, 5).toString('latin1') === '%PDF-') throw notSupportedYet('PDF');

  const text = buf.toString('utf8');
  const start = text.trimStart();
  if (start === '') throw noReport();

  if (start.startsWith('<')) return parseXml(text);

  if (start.startsWith('{') || start.startsWith('[')) {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      if (isObject(parsedOrUndefined(start.split('\n', 1)[0].trim()))) return parseJsonLines(text);
      throw invalidAt('', jsonSyntaxError(text, e));
    }
    return { ...parseJsonDocument(doc), contentHash: sha256(JSON.stringify(doc)) };
  }

  // A bare JSON scalar (`null`, a string, a number).
  const scalar = parsedOrUndefined(text);
  if (scalar === null) throw noReport();
  if (scalar !== undefined) throw unrecognised(`a JSON ${typeof scalar} is not a report`);
  // IMPORT-RULES: any other UTF-8 text is read as a CSV export and must match one of its layouts.
  if (!isUtf8(buf)) throw unrecognised('the content is neither UTF-8 text nor a PDF');
  return { ...parseCsv(text), contentHash: sha256(text) };
}
