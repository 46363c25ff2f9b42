import argon2 from 'argon2';

/** argon2id hash of `password` in PHC string form (`$argon2id$v=19$m=…`), with argon2's default costs. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id });
}

/** A valid hash of a random password, checked when the username is unknown so both paths cost the same. */
let dummyHash: Promise<string> | undefined;

/**
 * Whether `password` matches `hash`. With `hash` undefined (unknown username) a dummy hash is
 * checked anyway and the answer is `false`, so response times do not reveal which usernames exist.
 */
export async function verifyPassword(hash: string | undefined, password: string): Promise<boolean> {
  dummyHash ??= hashPassword(`no-such-operator-${Math.random()}`);
  const target = hash ?? (await dummyHash);
  const ok = await argon2.verify(target, password).catch(() => false);
  return ok && hash !== undefined;
}
