import { z } from 'zod';
import { ConfigError, envInt, validateEnv } from './validate-env';

/** Like the apps' env schemas. */
const SampleEnv = z.looseObject({
  STEPS: envInt(8, 1, 50),
  TIMEOUT_MS: envInt(600_000, 0),
});

describe('validateEnv', () => {
  it('reads numbers from environment strings', () => {
    const env = validateEnv(SampleEnv, { STEPS: '5', TIMEOUT_MS: '120_000' });
    expect(env).toMatchObject({ STEPS: 5, TIMEOUT_MS: 120000 });
  });

  it('keeps defaults for unset or empty variables', () => {
    expect(validateEnv(SampleEnv, { STEPS: '' })).toMatchObject({
      STEPS: 8,
      TIMEOUT_MS: 600000,
    });
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      validateEnv(SampleEnv, { STEPS: 'many', TIMEOUT_MS: '-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'STEPS: must be a number, got "many"',
      'TIMEOUT_MS: must be at least 0, got -1',
    ]);
  });
});
