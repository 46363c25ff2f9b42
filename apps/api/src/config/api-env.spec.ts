import { z } from 'zod';
import { chatSocketEnvSchema } from '../chat/chat-socket.env';
import { settingsEnvSchema } from '../settings/settings.env';
import { apiEnvSchema, loadApiEnv } from './api-env';

describe('the API environment schemas', () => {
  it('describe every variable and flag the secrets', () => {
    for (const schema of [apiEnvSchema, chatSocketEnvSchema, settingsEnvSchema])
      for (const [name, variable] of Object.entries(schema.shape))
        expect({ name, described: (variable.description ?? '').length > 10 }).toEqual({
          name,
          described: true,
        });
    const secrets = Object.entries(apiEnvSchema.shape)
      .filter(([, variable]) => z.globalRegistry.get(variable)?.['secret'] === true)
      .map(([name]) => name);
    expect(secrets).toEqual(['JWT_SECRET', 'ADMIN_PASSWORD']);
  });

  it('stops with every bad variable named', () => {
    expect(() => loadApiEnv({ API_PORT: '70000', COOKIE_SECURE: 'yes', TRUST_PROXY: 'everyone' })).toThrow(
      /COOKIE_SECURE: must be one of auto, true, false[\s\S]*TRUST_PROXY: must be empty[\s\S]*API_PORT: must be at most 65535, got 70000/,
    );
    expect(loadApiEnv({ API_PORT: '8080' })).toMatchObject({
      API_PORT: 8080,
      COOKIE_SECURE: 'auto',
      DB_POOL_SIZE: 10,
    });
  });
});
