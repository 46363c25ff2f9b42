/**
 * Exact o200k_base token counts of the fixed texts every model request carries, keyed by the
 * text's length in UTF-16 code units and its SHA-256 in hex (`<length>:<sha256>`, so only texts of a
 * listed length are hashed): the system prompt (`buildSystemPrompt()`) and the JSON of the tool
 * schemas (`CorpusTools.definitions()`). With them, a turn whose other texts fit the budget by
 * their byte length never loads the tokenizer (about 48 MiB).
 *
 * Counted with `gpt-tokenizer`'s o200k_base; `known-token-counts.spec.ts` recounts the current
 * texts and fails with the entries to put here when a prompt or schema changed. A text missing
 * here is simply counted (the result is the same; only the tokenizer gets loaded).
 */
export const KNOWN_TOKEN_COUNTS: Readonly<Record<string, number>> = {
  // buildSystemPrompt()
  '1535:87578dd7bc729a75a15e2cc3db1feb0ee73528ccfd6f3d3f2633147f408ce75f': 364,
  // JSON.stringify(CorpusTools.definitions())
  '3567:7c1b846459ff97abd218880c38a530af73f862e1c76b4137949da3614833246c': 823,
};
