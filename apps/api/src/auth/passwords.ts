import argon2 from 'argon2';

/**
 * argon2id hash of `password` in PHC string form (`$argon2id$v=19$m=…`): argon2's default passes and
 * parallelism, `memoryKib` of memory (`PASSWORD_HASH_MEMORY_KIB`).
 */
export function hashPassword(password: string, memoryKib: number): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, memoryCost: memoryKib });
}

/**
 * Per memory cost, a valid hash of a random password, checked when the username is unknown so both
 * paths cost the same.
 */
const dummyHashes = new Map<number, Promise<string>>();

function dummyHash(memoryKib: number): Promise<string> {
  let hash = dummyHashes.get(memoryKib);
  if (!hash) {
    hash = hashPassword(`no-such-operator-${Math.random()}`, memoryKib);
    dummyHashes.set(memoryKib, hash);
  }
  return hash;
}

/**
 * Whether `password` matches `hash`. With `hash` undefined (unknown username) a dummy hash of the
 * configured cost is checked anyway and the answer is `false`, so response times do not reveal
 * which usernames exist.
 */
export async function verifyPassword(
  hash: string | undefined,
  password: string,
  memoryKib: number,
): Promise<boolean> {
  const target = hash ?? (await dummyHash(memoryKib));
  const ok = await argon2.verify(target, password).catch(() => false);
  return ok && hash !== undefined;
}
