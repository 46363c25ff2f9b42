import { createSecretKey } from 'node:crypto';
import { JwtService } from '@nestjs/jwt';

/**
 * The session `JwtService` (HS256) with `secret` as a `KeyObject`: given a string, jsonwebtoken
 * tries it as a public key on every call first (docs/benchmarks.md, scenario 2).
 */
export function createSessionJwtService(secret: string, ttlSeconds: number): JwtService {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return new JwtService({
    secretOrKeyProvider: () => key,
    signOptions: { algorithm: 'HS256', expiresIn: ttlSeconds },
  });
}
