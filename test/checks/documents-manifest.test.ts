// The real-document set (data/documents/): every truth is confirmed by its zone's check digits,
// every shipped picture is the one the manifest names, and the held-out set is unchanged since
// it was sealed (heldout.sha256). Pure file checks: no engine, no OCR.
import fs from 'node:fs';
import path from 'node:path';
import {
  documentsDir,
  heldoutDigest,
  loadManifest,
  loadPicture,
  readSeal,
  sha256,
} from '../../eval/documents/manifest.js';
import { LINE_LENGTH, failedCheckDigits, icaoCheckDigit, yymmdd, zoneFields } from '../../eval/documents/zone.js';

const dir = documentsDir();
const manifest = loadManifest(dir);
const all = [...manifest.documents, ...manifest.negatives];

describe('the truth of each real document', () => {
  it('computes the ICAO check digit of the Doc 9303 specimen (so the checks below can fail)', () => {
    expect(icaoCheckDigit('L898902C3')).toBe('6');
    expect(
      failedCheckDigits('TD3', [
        'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
        'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
      ]),
    ).toEqual([]);
    expect(
      failedCheckDigits('TD3', [
        'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
        'L898902C36UTO7408132F1204159ZE184226B<<<<<10',
      ]),
    ).toEqual(['birth', 'composite']);
  });

  it.each(manifest.documents.map((d) => [d.id, d] as const))(
    '%s: the zone passes every check digit and states the truth',
    (_id, d) => {
      expect(d.mrz.every((line) => line.length === LINE_LENGTH[d.layout] && /^[A-Z0-9<]+$/.test(line))).toBe(true);
      expect(failedCheckDigits(d.layout, d.mrz)).toEqual([]);
      const zone = zoneFields(d.layout, d.mrz);
      expect(d.truth.document_number).toBe(zone.number);
      expect(yymmdd(d.truth.date_of_birth)).toBe(zone.birth);
      expect(d.truth.expiry_date ? yymmdd(d.truth.expiry_date) : null).toBe(zone.expiry);
      expect(Number.isNaN(Date.parse(`${d.truth.date_of_birth}T00:00:00Z`))).toBe(false);
    },
  );
});

describe('the pictures', () => {
  it('ships exactly the pictures whose licence allows it, each with the recorded SHA-256', () => {
    for (const entry of all) {
      expect({ id: entry.id, shipped: !!entry.file }).toEqual({ id: entry.id, shipped: entry.ship });
      if (entry.file)
        expect({ id: entry.id, sha: sha256(fs.readFileSync(path.join(dir, entry.file))) }).toEqual({
          id: entry.id,
          sha: entry.sha256,
        });
      else expect(entry.not_shipped_because).toBeTruthy();
    }
    const onDisk = ['heldout', 'tuning'].flatMap((set) =>
      fs.existsSync(path.join(dir, set)) ? fs.readdirSync(path.join(dir, set)).map((f) => `${set}/${f}`) : [],
    );
    expect(onDisk.sort()).toEqual(
      all
        .filter((e) => e.file)
        .map((e) => e.file)
        .sort(),
    );
  });

  it("keeps every picture of one document in one set, in that set's folder", () => {
    const setOf = new Map<string, string>();
    for (const d of manifest.documents) {
      expect(setOf.get(d.group) ?? d.set).toBe(d.set);
      setOf.set(d.group, d.set);
      if (d.file) expect(d.file.startsWith(`${d.set}/`)).toBe(true);
    }
  });

  it("refuses a picture whose bytes are not the manifest's", () => {
    const shipped = manifest.documents.find((d) => d.file)!;
    expect(loadPicture(shipped, dir)).toHaveProperty('bytes');
    expect(loadPicture({ ...shipped, sha256: '0'.repeat(64) }, dir)).toEqual({
      skipped: expect.stringContaining('SHA-256 differs'),
    });
  });
});

describe('the held-out seal (heldout.sha256)', () => {
  const seal = readSeal(dir);

  it('matches the held-out entries of the manifest', () => {
    expect(seal.get('manifest.json#heldout')).toBe(heldoutDigest(manifest));
  });

  it('lists every held-out picture with its SHA-256, and nothing else', () => {
    const heldout = all.filter((e) => e.set === 'heldout');
    const expected = new Map(heldout.map((e) => [e.file ?? `external:${e.source.repo}/${e.source.path}`, e.sha256]));
    expected.set('manifest.json#heldout', heldoutDigest(manifest));
    expect(Object.fromEntries(seal)).toEqual(Object.fromEntries(expected));
    expect(heldout.length).toBeGreaterThanOrEqual(20);
  });
});
