import { createSecretKey } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';

/**
 * The `JwtService` that signs and verifies session tokens (HS256, `ttlSeconds` lifetime) with
 * `secret` held as a `KeyObject`. Given a string, jsonwebtoken first tries to parse it as a public
 * key on every call (and fails) before using it as a secret: about 0.35 ms per request on the
 * benchmark machine, against 0.02 ms with the key object (docs/benchmarks.md, scenario 2).
 */
export function createSessionJwtService(secret: string, ttlSeconds: number): JwtService {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return new JwtService({
    secretOrKeyProvider: () => key,
    signOptions: { algorithm: 'HS256', expiresIn: ttlSeconds },
  });
}
