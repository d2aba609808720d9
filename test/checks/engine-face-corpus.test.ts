// The face_match held-out sets stay frozen: the second set (test/engine/faces/real-2) was
// committed with its split and checksums before any tuning, and a held-out file, the list of
// checksums or the split changing fails here (README of real-2). The third (real-3) was frozen
// before any face engine ran on it; its photos are brought in by eval/faces/materialise.ts rather
// than committed, so its manifest, split and checksum list are what is frozen, and a person or a
// photo it shares with another corpus fails here too (README of real-3). The fourth (real-4) is
// frozen the same way, before any face engine ran on it, with a population group per person
// (README of real-4). The fifth (real-5) likewise, mostly East and Southeast Asian people, new to
// every other set (README of real-5). The sixth (real-6) likewise, new to all five, with people
// from a source beyond LFW (README of real-6).
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

interface ManifestImage {
  file: string;
  person: string;
  repo: string;
  commit: string;
  path: string;
  source_sha256: string;
  sha256: string;
}
interface GroupedManifest {
  people: Record<string, { group: string; sex: string; group_basis: string }>;
  images: ManifestImage[];
}
const manifestOf = async (dir: string) =>
  (JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as { images: ManifestImage[] }).images;
/** Everyone a corpus's split names (every key but the rule). */
const peopleOf = async (dir: string) => {
  const split = JSON.parse(await readFile(path.join(dir, 'split.json'), 'utf8')) as Record<string, string | string[]>;
  return Object.values(split).flatMap((v) => (Array.isArray(v) ? v : []));
};
/** A person's name without the source prefix (`lfw-bob-dole` -> `bob-dole`): the same person from two sources. */
const name = (person: string) => person.replace(/^[a-z0-9]+-/, '');

/** The populations real-4 and real-5 record per person (their READMEs). */
const GROUPS = ['east-asian', 'southeast-asian', 'south-asian', 'black', 'latin-american', 'white'];

/** What each set must hold of the populations it was gathered for (READMEs of real-4 and real-5). */
function eastAsianMix4(manifest: GroupedManifest, people: string[]) {
  const photos = (person: string) => manifest.images.filter((i) => i.person === person).length;
  const eastAsian = (sex: string) =>
    people.filter(
      (p) => manifest.people[p]!.group === 'east-asian' && manifest.people[p]!.sex === sex && photos(p) >= 2,
    );
  expect(eastAsian('f').length).toBeGreaterThanOrEqual(7);
  expect(eastAsian('m').length).toBeGreaterThanOrEqual(7);
  const sources = new Set(people.filter((p) => manifest.people[p]!.group === 'east-asian').map((p) => p.split('-')[0]));
  expect(sources.size).toBeGreaterThanOrEqual(2);
}

function eastAsianMix5(manifest: GroupedManifest, people: string[]) {
  const photos = (person: string) => manifest.images.filter((i) => i.person === person).length;
  expect(people.filter((p) => photos(p) < 2 || photos(p) > 4)).toEqual([]);
  const of = (group: string, sex?: string) =>
    people.filter((p) => manifest.people[p]!.group === group && (!sex || manifest.people[p]!.sex === sex));
  expect(of('east-asian').length).toBeGreaterThanOrEqual(25);
  expect(of('east-asian', 'f').length).toBeGreaterThanOrEqual(6);
  expect(of('east-asian', 'm').length).toBeGreaterThanOrEqual(6);
  expect(of('southeast-asian').length).toBeGreaterThanOrEqual(6);
  expect(people.length - of('east-asian').length - of('southeast-asian').length).toBeGreaterThanOrEqual(10);
}

function eastAsianMix6(manifest: GroupedManifest, people: string[]) {
  const photos = (person: string) => manifest.images.filter((i) => i.person === person).length;
  expect(people.filter((p) => photos(p) < 2 || photos(p) > 4)).toEqual([]);
  const of = (group: string, sex?: string) =>
    people.filter((p) => manifest.people[p]!.group === group && (!sex || manifest.people[p]!.sex === sex));
  expect(of('east-asian').length).toBeGreaterThanOrEqual(15);
  expect(of('southeast-asian').length).toBeGreaterThanOrEqual(4);
  expect(people.length - of('east-asian').length - of('southeast-asian').length).toBeGreaterThanOrEqual(12);
  expect(people.filter((p) => manifest.people[p]!.sex === 'f').length).toBeGreaterThanOrEqual(8);
  // Not LFW alone: at least one other source.
  expect(new Set(people.map((p) => p.split('-')[0])).size).toBeGreaterThanOrEqual(2);
}

/**
 * The sets frozen before any face engine ran on them, photos brought in rather than committed:
 * sha256 of their files as frozen (the commit that added each), their size, and the corpora each
 * must be new to.
 */
const FROZEN_SETS = [
  {
    set: 'real-3',
    list: 'held-out-3.sha256',
    frozen: {
      'manifest.json': '90a886bc3e7740a061f76b39a1b64060e17f692afc2e8d883192e48b99af97fb',
      'split.json': 'b4f0a1fca9beb7af5b04c27a3b719449b4c52bd7390d5c991e75cfba342d438b',
      'held-out-3.sha256': '8210d3d588233f6f17e366c68267e28ad34337edca7f38683e28789dc8fc4fe3',
    },
    photos: 94,
    people: 39,
    others: ['real', 'real-2'],
    mix: null,
  },
  {
    set: 'real-4',
    list: 'held-out-4.sha256',
    frozen: {
      'manifest.json': '13d1f608eb05ac2610c235b5dc1b63623cddc10efecab798ca9b7fe6c5ee19f0',
      'split.json': '2c533dbb61a29457ac057fea8a9499fe75500c4dd1dd07b79c894d2cec5d61ef',
      'held-out-4.sha256': '0bfb0df52010235405ea84ea18f55279ed2235d3aeb84245ab2f7b92da87d8b4',
    },
    photos: 141,
    people: 55,
    others: ['real', 'real-2', 'real-3'],
    mix: eastAsianMix4,
  },
  {
    set: 'real-5',
    list: 'held-out-5.sha256',
    frozen: {
      'manifest.json': '94f26e1e0659263d76d21c40d42969e4c87af14de8ddff32ae02bf34077a4bcc',
      'split.json': 'ad97f5be9d92bcf0162232fc88b5d2ea1f90cac73184dca60f8cdbd4164e04b5',
      'held-out-5.sha256': '7fa30efd1f37ceda0bf747ac144dfb0857099189f36a1dcb5505b83cb8636efd',
    },
    photos: 130,
    people: 47,
    others: ['real', 'real-2', 'real-3', 'real-4'],
    mix: eastAsianMix5,
  },
  {
    set: 'real-6',
    list: 'held-out-6.sha256',
    frozen: {
      'manifest.json': 'c880f2e230baa291c24d6d2131f99c62f6bcbbdcdab35887704ebaf7e217558c',
      'split.json': '2f84d7022f67f2aeba59fcaa92c61e34e1b874536559c40c9a7b2c52f3cee37e',
      'held-out-6.sha256': 'df9d98202c1b10fe8ba083859bfb8ad3cf82353901050982e3774532911b3339',
    },
    photos: 98,
    people: 37,
    others: ['real', 'real-2', 'real-3', 'real-4', 'real-5'],
    mix: eastAsianMix6,
  },
];

describe.each(FROZEN_SETS)(
  'face corpus $set is frozen and new',
  ({ set, list, frozen, photos, people: count, others, mix }) => {
    const dir = path.join(FACES_DIR, set);

    it('its manifest, split and checksum list are the frozen ones and agree with each other', async () => {
      for (const [file, digest] of Object.entries(frozen))
        expect([file, sha256(await readFile(path.join(dir, file)))]).toEqual([file, digest]);
      const images = await manifestOf(dir);
      expect(images).toHaveLength(photos);
      const entries = (await readFile(path.join(dir, list), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/));
      expect(entries).toEqual(images.map((i) => [i.sha256, i.file]));
      const people = await peopleOf(dir);
      expect(people).toHaveLength(count);
      expect(new Set(images.map((i) => i.person))).toEqual(new Set(people));
      for (const i of images) {
        expect(i.file.startsWith(`${i.person}/`)).toBe(true);
        expect([i.file, i.repo, i.path, i.commit, i.source_sha256, i.sha256]).toEqual([
          i.file,
          expect.stringMatching(/^[\w.-]+\/[\w.-]+$/),
          expect.any(String),
          expect.stringMatching(/^[0-9a-f]{40}$/),
          expect.stringMatching(/^[0-9a-f]{64}$/),
          expect.stringMatching(/^[0-9a-f]{64}$/),
        ]);
      }
    });

    if (mix)
      it('records a population group for every person, and holds the populations it was gathered for', async () => {
        const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as GroupedManifest;
        const people = await peopleOf(dir);
        expect(Object.keys(manifest.people).sort()).toEqual([...people].sort());
        for (const [person, p] of Object.entries(manifest.people))
          expect([person, GROUPS.includes(p.group), p.sex, p.group_basis.length > 0]).toEqual([
            person,
            true,
            expect.stringMatching(/^[fm]$/),
            true,
          ]);
        mix(manifest, people);
      });

    it('shares no person and no photo with any other corpus, nor a photo within itself', async () => {
      const otherDirs = others.map((o) => path.join(FACES_DIR, o));
      const otherPeople = (await Promise.all(otherDirs.map(peopleOf))).flat();
      const people = await peopleOf(dir);
      expect(people.filter((p) => otherPeople.includes(p))).toEqual([]);
      expect(people.filter((p) => otherPeople.map(name).includes(name(p)))).toEqual([]);
      expect(new Set(people.map(name)).size).toBe(people.length);
      const otherDigests = new Set(
        (await Promise.all(otherDirs.map(manifestOf))).flat().flatMap((i) => [i.sha256, i.source_sha256]),
      );
      const images = await manifestOf(dir);
      expect(images.filter((i) => otherDigests.has(i.sha256) || otherDigests.has(i.source_sha256))).toEqual([]);
      expect(new Set(images.map((i) => i.source_sha256)).size).toBe(images.length);
      expect(new Set(images.map((i) => i.sha256)).size).toBe(images.length);
    });

    it('the photos, where brought in, are all there and are the frozen ones', async () => {
      const images = await manifestOf(dir);
      const found = await Promise.all(
        images.map(async (i) => {
          const bytes = await readFile(path.join(dir, i.file)).catch(() => null);
          return bytes && [i.file, sha256(bytes)];
        }),
      );
      const present = found.filter((f) => f !== null);
      // None (a fresh clone: the photos are not committed) or every one, each byte-identical.
      expect([0, images.length]).toContain(present.length);
      expect(present).toEqual(images.filter((_, k) => found[k]).map((i) => [i.file, i.sha256]));
    });
  },
);
