/**
 * Web Storage that may refuse (private mode, quota): a refused read is nothing stored, a refused
 * write keeps the value for this page only. The storage is a function, as touching it can throw.
 */
const local = (): Storage => localStorage;

/** `key`'s stored value; null when there is none or storage is refused. */
export function readStored(key: string, storage = local): string | null {
  try {
    return storage().getItem(key);
  } catch {
    return null;
  }
}

/** Stores `value` under `key` (null removes it); false when storage is refused. */
export function writeStored(key: string, value: string | null, storage = local): boolean {
  try {
    if (value === null) storage().removeItem(key);
    else storage().setItem(key, value);
    return true;
  } catch {
    return false;
  }
}
