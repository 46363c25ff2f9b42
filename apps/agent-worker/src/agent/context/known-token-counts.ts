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
  '1527:032ac11a0f10b5b1bbf5c7a2ccedf3fda19e74bb8d6db4d3035318b180efd2c1': 362,
  // JSON.stringify(CorpusTools.definitions())
  '3783:31322be19b2775e976c4edeb51855d7988e465a8ada693fdec5236b5c9b5e8dc': 867,
};
