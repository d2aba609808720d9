import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` unbiased random base62 characters (rejection sampling over random bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix = 'vs' | 'flw' | 'whe' | 'tag' | 'app' | 'doc' | 'bio' | 'rvg' | 'req' | 'mer' | 'mem' | 'evt' | 'chk' | 'del' | 'prv';

/** A random URL-safe prefixed id: `vs_` + 24 base62 characters, and so on. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`;

export const newUuid = (): string => randomUUID();

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isPrefixedId = (value: string, prefix: IdPrefix): boolean => new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`).test(value);
