import { UnrecoverableError } from 'bullmq';
import { runImportJobDataSchema, runTurnJobDataSchema } from '@corpus-chat/contracts';
import { parseJobData } from './job-data';

const ID = '3f1c2a6e-8d4b-4c1e-9a7f-2b5d6e8f9a01';
const turn = { turnId: ID, chatId: ID, ownerId: ID, userMessageId: ID };

describe('job data', () => {
  it('hands on the data of a well-formed job, with or without the language older jobs lack', () => {
    expect(parseJobData(runTurnJobDataSchema, turn)).toEqual(turn);
    expect(parseJobData(runTurnJobDataSchema, { ...turn, language: 'ru' })).toEqual({
      ...turn,
      language: 'ru',
    });
    expect(parseJobData(runImportJobDataSchema, { importId: ID })).toEqual({ importId: ID });
  });

  it('fails malformed data without retry, naming each field', () => {
    const refusal = (schema: typeof runTurnJobDataSchema | typeof runImportJobDataSchema, data: unknown) => {
      try {
        parseJobData(schema, data);
      } catch (e) {
        expect(e).toBeInstanceOf(UnrecoverableError);
        return (e as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal(runTurnJobDataSchema, { ...turn, chatId: 'x', language: 'de' })).toBe(
      'job data: chatId must be a UUID; language must be one of en, ru, got "de"',
    );
    expect(refusal(runImportJobDataSchema, undefined)).toBe('job data: importId is required');
    expect(refusal(runImportJobDataSchema, { importId: 42 })).toBe('job data: importId must be a UUID');
  });
});
