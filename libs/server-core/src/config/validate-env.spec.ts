import 'reflect-metadata';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { ConfigError, validateEnv } from './validate-env';

/** Like the apps' env classes: types inferred from defaults, no @Type decorators. */
class SampleEnv {
  @IsInt()
  @Min(1)
  @Max(50)
  STEPS = 8;

  @IsInt()
  @Min(0)
  TIMEOUT_MS = 600_000;

  @IsBoolean()
  VERBOSE = false;
}

describe('validateEnv', () => {
  it('reads numbers and booleans from environment strings by the type of the default', () => {
    const env = validateEnv(SampleEnv, { STEPS: '5', TIMEOUT_MS: '120_000', VERBOSE: 'true' });
    expect(env).toMatchObject({ STEPS: 5, TIMEOUT_MS: 120000, VERBOSE: true });
  });

  it('keeps defaults for unset or empty variables', () => {
    expect(validateEnv(SampleEnv, { STEPS: '' })).toMatchObject({
      STEPS: 8,
      TIMEOUT_MS: 600000,
      VERBOSE: false,
    });
  });

  it('names every bad variable', () => {
    let error: unknown;
    try {
      validateEnv(SampleEnv, { STEPS: 'many', TIMEOUT_MS: '-1', VERBOSE: 'perhaps' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.split(':')[0]).sort()).toEqual([
      'STEPS',
      'TIMEOUT_MS',
      'VERBOSE',
    ]);
  });
});
