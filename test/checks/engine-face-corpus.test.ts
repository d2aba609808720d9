// The face_match held-out sets stay frozen: the second set (test/engine/faces/real-2) was
// committed with its split and checksums before any tuning, and a held-out file, the list of
// checksums or the split changing fails here (README of real-2).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FACES_DIR } from '../../eval/faces/corpus.js';

const DIR = path.join(FACES_DIR, 'real-2');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
/** sha256 of held-out-2.sha256 as frozen (commit 1d397d4). */
const FROZEN_LIST = '42608678180000cd77a293f79dc86c93513342e22827c6a6795dc3cdfea37fc6';

describe('face corpus held-out-2 is frozen', () => {
  it('every held-out-2 file matches its frozen checksum, and the list matches the split', async () => {
    const list = await readFile(path.join(DIR, 'held-out-2.sha256'), 'utf8');
    expect(sha256(list)).toBe(FROZEN_LIST);
    const entries = list
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/) as [string, string]);
    expect(entries).toHaveLength(70);
    for (const [digest, file] of entries)
      expect([file, sha256(await readFile(path.join(DIR, file)))]).toEqual([file, digest]);
    const split = JSON.parse(await readFile(path.join(DIR, 'split.json'), 'utf8')) as Record<string, string[]>;
    expect(new Set(entries.map(([, file]) => file.split('/')[0]))).toEqual(new Set(split.heldOut2));
    expect(split.heldOut2!.filter((p) => split.tuning2!.includes(p))).toEqual([]);
  });

  it('no person of the second set is in the first corpus', async () => {
    const split = JSON.parse(await readFile(path.join(DIR, 'split.json'), 'utf8')) as Record<string, string[]>;
    const first = JSON.parse(await readFile(path.join(FACES_DIR, 'real', 'split.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const firstPeople = [...first.heldOut!, ...first.tuning!];
    expect([...split.heldOut2!, ...split.tuning2!].filter((p) => firstPeople.includes(p))).toEqual([]);
  });
});
