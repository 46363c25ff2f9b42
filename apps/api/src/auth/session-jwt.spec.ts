import { JwtService } from '@nestjs/jwt';
import { createSessionJwtService } from './session-jwt';

describe('createSessionJwtService', () => {
  const secret = 'a-session-secret-of-at-least-32-characters!';

  it('verifies its own HS256 tokens, interoperable with a plain-string secret', async () => {
    const jwt = createSessionJwtService(secret, 1800);
    const token = await jwt.signAsync({ sub: 'operator-1' });
    const claims = await jwt.verifyAsync<{ sub: string; iat: number; exp: number }>(token, {
      algorithms: ['HS256'],
    });
    expect(claims.sub).toBe('operator-1');
    expect(claims.exp - claims.iat).toBe(1800);
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toMatchObject({
      alg: 'HS256',
    });
    // Tokens issued before this change (string secret) stay valid, and the other way round.
    const plain = new JwtService({ secret, signOptions: { algorithm: 'HS256' } });
    await expect(
      jwt.verifyAsync(await plain.signAsync({ sub: 'operator-2' }), { algorithms: ['HS256'] }),
    ).resolves.toMatchObject({ sub: 'operator-2' });
    await expect(plain.verifyAsync(token, { algorithms: ['HS256'] })).resolves.toMatchObject({
      sub: 'operator-1',
    });
  });

  it('refuses a token signed with another secret, or tampered with', async () => {
    const jwt = createSessionJwtService(secret, 1800);
    const other = createSessionJwtService(`${secret}-other`, 1800);
    await expect(
      jwt.verifyAsync(await other.signAsync({ sub: 'x' }), { algorithms: ['HS256'] }),
    ).rejects.toThrow('invalid signature');
    const token = await jwt.signAsync({ sub: 'operator-1' });
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', iat: 1, exp: 9e9 })).toString('base64url')}.${s}`;
    await expect(jwt.verifyAsync(forged, { algorithms: ['HS256'] })).rejects.toThrow();
  });
});
