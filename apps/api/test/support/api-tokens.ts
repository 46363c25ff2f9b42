import request from 'supertest';
import type { CreatedApiToken } from '@corpus-chat/contracts';
import type { LoginSession } from './login';

/**
 * Creates an API token through `POST /api/auth/tokens` as `session`, confirming with the password
 * it signed in with; throws with the answer unless 201.
 */
export async function createApiToken(
  baseUrl: string,
  session: LoginSession,
  body: { name: string; expiresInDays?: number },
): Promise<CreatedApiToken> {
  const res = await request(baseUrl)
    .post('/api/auth/tokens')
    .set(session.headers)
    .send({ ...body, password: session.password });
  if (res.status !== 201)
    throw new Error(`creating an API token failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as CreatedApiToken;
}

/** `{ Authorization: 'Bearer <secret>' }`, for supertest's `.set()` or fetch headers. */
export const bearer = (secret: string): Record<string, string> => ({ Authorization: `Bearer ${secret}` });
