import { type ImportErrorCode, SUPPORTED_IMPORT_FORMATS } from '@corpus-chat/contracts';

/** Why a file was not imported (nothing written); `message` says where and why, actionably. */
export class ImportRefusal extends Error {
  constructor(
    readonly code: ImportErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ImportRefusal';
  }
}

/** Refusal for a file that holds no report (empty, whitespace, `null`, `[]`). */
export const noReport = (): ImportRefusal => new ImportRefusal('EMPTY', 'the file holds no report');

/** Refusal for a recognised format the importer does not read yet (Burp XML, Nessus, CSV, PDF). */
export const notSupportedYet = (format: string): ImportRefusal =>
  new ImportRefusal('UNSUPPORTED_FORMAT', `format ${format} is not supported yet`);

/** Refusal for content in no known format; `detail` says what was seen, then the formats there are. */
export const unrecognised = (detail: string): ImportRefusal =>
  new ImportRefusal(
    'UNRECOGNISED_FORMAT',
    `unrecognised format: ${detail}. Supported formats: ${SUPPORTED_IMPORT_FORMATS}`,
  );

/** Refusal for a file of a known format whose content is malformed at `where`. */
export const invalidAt = (where: string, why: string): ImportRefusal =>
  new ImportRefusal('INVALID', where ? `${where}: ${why}` : why);
