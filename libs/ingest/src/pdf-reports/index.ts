export * from './pdf-import';
export {
  addManualFinding,
  completeReportReview,
  readReportText,
  PAGE_SEPARATOR,
  type ManualFindingInput,
  type ManualFindingResult,
  type ReviewResult,
} from './pdf-reports.queries';
export { extractPdfText, isPdf, NO_TEXT_LAYER, type PdfText } from './pdf-text';
export { EXTRACTION_INSTRUCTIONS, EXTRACTION_SCHEMA, findingsFromModelAnswer } from './model-answer';
