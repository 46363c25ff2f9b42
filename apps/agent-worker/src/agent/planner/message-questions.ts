/**
 * The questions of one message ("How many findings are in X? And how many of them are high?"):
 * cut after a question mark, or before "and"/"also"/"then" after a full stop or semicolon.
 */
export function splitQuestions(message: string): string[] {
  const parts = message
    .split(/(?<=\?)\s+(?=\S)|(?<=[.;])\s+(?=(?:and|also|then)\b)/i)
    .filter((p) => /\p{L}/u.test(p));
  return parts.length ? parts : [message];
}
