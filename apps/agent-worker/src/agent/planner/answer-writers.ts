import type { OperatorLanguage } from '@corpus-chat/contracts';
import { ENGLISH } from './answer-english';
import { RUSSIAN } from './answer-russian';
import { writerFor, type AnswerWriter } from './answer-writer';

export type { AnswerWriter };
const WRITERS: Record<OperatorLanguage, AnswerWriter> = { en: writerFor(ENGLISH), ru: writerFor(RUSSIAN) };

/** The writer for a turn's language (`en` when the turn names none). */
export const answerWriter = (language: OperatorLanguage = 'en'): AnswerWriter =>
  WRITERS[language] ?? WRITERS.en;
