import { randomFillSync, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_CODES = Buffer.from(BASE62, 'latin1');

/** Random bytes drawn 4 KiB at a time: one crypto call serves ~80 ids instead of one each. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Where an id's characters are assembled before they become one string. */
const scratch = Buffer.alloc(256);

/**
 * `length` unbiased random base62 characters (rejection sampling: bytes 248-255 are skipped).
 * The characters are written into a scratch buffer and decoded once: appending them to a
 * string one by one would allocate an intermediate string per character, on every request
 * (each response's request id is one of these).
 */
export function randomBase62(length: number): string {
  if (length > scratch.length) return randomBase62(scratch.length) + randomBase62(length - scratch.length);
  let filled = 0;
  while (filled < length) {
    const byte = nextRandomByte();
    if (byte < 248) scratch[filled++] = BASE62_CODES[byte % 62]!;
  }
  return scratch.toString('latin1', 0, length);
}

export type IdPrefix =
  | 'vs'
  | 'flw'
  | 'whe'
  | 'tag'
  | 'app'
  | 'doc'
  | 'bio'
  | 'rvg'
  | 'req'
  | 'mer'
  | 'mem'
  | 'evt'
  | 'chk'
  | 'del'
  | 'prv'
  | 'ntf'
  | 'aud'
  | 'act'
  | 'idv'
  | 'rlg'
  | 'fn'
  | 'fsg';

/** A random URL-safe prefixed id: `vs_` + 24 base62 characters, and so on. */
export const newId = (prefix: IdPrefix): string => `${prefix}_${randomBase62(24)}`;

export const newUuid = (): string => randomUUID();

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isPrefixedId = (value: string, prefix: IdPrefix): boolean =>
  new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`).test(value);
