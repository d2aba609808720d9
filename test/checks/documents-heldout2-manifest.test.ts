// The second held-out set (data/documents/heldout2.json): every truth is confirmed by its zone's
// check digits, every licence is recorded and only a shippable one is shipped, the shipped bytes
// are the sealed ones, the seal (heldout2.sha256) covers every entry, and nothing in it repeats a
// picture or a document of the first manifest. Pure file checks: no engine, no OCR.
import fs from 'node:fs';
import path from 'node:path';
import {
  SHIPPABLE_LICENCES,
  heldout2Digest,
  listHeldout2,
  loadHeldout2,
  readHeldout2Seal,
  sealName,
} from '../../eval/documents/heldout2.js';
import { documentsDir, loadManifest, loadPicture, sha256 } from '../../eval/documents/manifest.js';
import { LINE_LENGTH, failedCheckDigits, icaoCheckDigit, yymmdd, zoneFields } from '../../eval/documents/zone.js';

const dir = documentsDir();
const frozen = loadHeldout2(dir);
const first = loadManifest(dir);
const isoDate = (s: string) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));

describe('the truth of each picture of the second held-out set', () => {
  it('fails a zone whose check digit is wrong (so the checks below can fail)', () => {
    expect(icaoCheckDigit('D23145890')).toBe('7');
    const [a, b, c] = frozen.documents.find((d) => d.layout === 'TD1')!.mrz;
    const broken = b.slice(0, 6) + String((Number(b[6]) + 1) % 10) + b.slice(7);
    expect(failedCheckDigits('TD1', [a, broken, c])).toContain('birth');
  });

  it.each(frozen.documents.map((d) => [d.id, d] as const))(
    '%s: the zone passes every check digit and states the truth',
    (_id, d) => {
      expect(d.set).toBe('heldout2');
      expect(d.mrz.every((line) => line.length === LINE_LENGTH[d.layout] && /^[A-Z0-9<]+$/.test(line))).toBe(true);
      expect(d.mrz).toHaveLength(d.layout === 'TD1' ? 3 : 2);
      expect(failedCheckDigits(d.layout, d.mrz)).toEqual([]);
      const zone = zoneFields(d.layout, d.mrz);
      expect(d.truth.document_number).toBe(zone.number);
      expect(yymmdd(d.truth.date_of_birth)).toBe(zone.birth);
      expect(d.truth.expiry_date ? yymmdd(d.truth.expiry_date) : null).toBe(zone.expiry);
      expect(isoDate(d.truth.date_of_birth) && isoDate(d.truth.expiry_date!)).toBe(true);
      // The century read into the truth: born before the document expires.
      expect(d.truth.date_of_birth < d.truth.expiry_date!).toBe(true);
    },
  );
});

describe('licences and bytes', () => {
  it('records every licence and ships a picture only under a licence that allows it', () => {
    for (const d of [...frozen.documents, ...frozen.negatives]) {
      expect({ id: d.id, licence: !!d.source.licence, commit: /^[0-9a-f]{40}$/.test(d.source.commit) }).toEqual({
        id: d.id,
        licence: true,
        commit: true,
      });
      expect('licence_file' in d.source).toBe(true);
      if (d.ship) {
        expect({ id: d.id, shippable: SHIPPABLE_LICENCES.includes(d.source.licence) }).toEqual({
          id: d.id,
          shippable: true,
        });
        expect(d.file).toMatch(/^heldout2\//);
        expect({ id: d.id, sha: sha256(fs.readFileSync(path.join(dir, d.file!))) }).toEqual({
          id: d.id,
          sha: d.sha256,
        });
      } else {
        expect({ id: d.id, file: d.file, why: !!d.not_shipped_because }).toEqual({ id: d.id, file: null, why: true });
      }
    }
  });

  it('holds exactly the shipped pictures (and their licence notices) in heldout2/', () => {
    const onDisk = fs.readdirSync(path.join(dir, 'heldout2')).filter((f) => f !== 'LICENSES.md');
    expect(onDisk.map((f) => `heldout2/${f}`).sort()).toEqual(
      [...frozen.documents, ...frozen.negatives]
        .filter((d) => d.file)
        .map((d) => d.file)
        .sort(),
    );
    const notices = fs.readFileSync(path.join(dir, 'heldout2', 'LICENSES.md'), 'utf8');
    for (const repo of new Set(
      [...frozen.documents, ...frozen.negatives].filter((d) => d.ship).map((d) => d.source.repo),
    ))
      expect(notices).toContain(repo);
  });

  it("refuses a shipped picture whose bytes are not the manifest's", () => {
    const shipped = frozen.documents.find((d) => d.file)!;
    expect(loadPicture(shipped, dir)).toHaveProperty('bytes');
    expect(loadPicture({ ...shipped, sha256: '0'.repeat(64) }, dir)).toEqual({
      skipped: expect.stringContaining('SHA-256 differs'),
    });
  });

  it('lists every picture in the dry run, the shipped ones present, without analysing any', () => {
    const table = listHeldout2(dir);
    const all = [...frozen.documents, ...frozen.negatives];
    expect(table.rows.map((r) => r[0])).toEqual(all.map((d) => d.id));
    for (const d of all.filter((e) => e.file)) expect(table.rows.find((r) => r[0] === d.id)![5]).toMatch(/^present/);
  });
});

describe('the seal (heldout2.sha256)', () => {
  it('covers the manifest entries and every picture by SHA-256, and nothing else', () => {
    const expected = new Map([...frozen.documents, ...frozen.negatives].map((d) => [sealName(d), d.sha256]));
    expected.set('heldout2.json#documents', heldout2Digest(frozen));
    expect(Object.fromEntries(readHeldout2Seal(dir))).toEqual(Object.fromEntries(expected));
    expect(frozen.documents.length).toBeGreaterThanOrEqual(20);
  });

  it("records each picture's overlap with the MRZ model's training lines", () => {
    for (const d of frozen.documents) {
      const { exact_lines, near_lines } = d.overlap;
      expect(Number.isInteger(exact_lines) && Number.isInteger(near_lines)).toBe(true);
      expect(exact_lines <= near_lines && near_lines <= d.mrz.length).toBe(true);
    }
  });
});

describe('independence from the first manifest (data/documents/manifest.json)', () => {
  const firstDocs = first.documents;
  it('repeats no picture, no document and no zone line', () => {
    const shas = new Set([...firstDocs, ...first.negatives].map((d) => d.sha256));
    const groups = new Set(firstDocs.map((d) => d.group));
    const lines = new Set(firstDocs.flatMap((d) => d.mrz));
    const numbers = new Set(firstDocs.map((d) => `${d.truth.document_number}/${d.truth.date_of_birth}`));
    const ids = new Set([...firstDocs, ...first.negatives].map((d) => d.id));
    for (const n of frozen.negatives) expect({ id: n.id, sha: shas.has(n.sha256) }).toEqual({ id: n.id, sha: false });
    for (const d of frozen.documents) {
      expect({
        id: d.id,
        sha: shas.has(d.sha256),
        group: groups.has(d.group),
        line: d.mrz.some((l) => lines.has(l)),
        number: numbers.has(`${d.truth.document_number}/${d.truth.date_of_birth}`),
        idTaken: ids.has(d.id),
      }).toEqual({ id: d.id, sha: false, group: false, line: false, number: false, idTaken: false });
    }
    expect(new Set(frozen.documents.map((d) => d.sha256)).size).toBe(frozen.documents.length);
    expect(new Set(frozen.documents.map((d) => d.group)).size).toBe(frozen.documents.length);
  });

  it('draws on none of the first manifest’s repositories, nor the zone model’s training repository', () => {
    const used = new Set([
      ...firstDocs.map((d) => d.source.repo),
      ...first.negatives.map((n) => n.source.repo),
      'DoubangoTelecom/tesseractMRZ',
    ]);
    for (const d of [...frozen.documents, ...frozen.negatives])
      expect({ id: d.id, reused: used.has(d.source.repo) }).toEqual({ id: d.id, reused: false });
  });
});
