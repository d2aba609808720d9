// The zone reader's OCR model (models/mrz, Doubango's tesseractMRZ): shipped in the repository
// with its licence and provenance, found from src/, dist/ and dist-eval/ alike, and reading
// real tuning pictures the band alone could not (a band cut short by the ink search, a band not
// found at all). Nothing here touches the held-out set.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { documentResult } from '../../src/engine/document.js';
import { analyseDocument, stopOcr } from '../../src/engine/document/index.js';
import { mrzModelDir } from '../../src/engine/document/ocr.js';
import { editDistance } from '../../eval/documents/overlap.js';

const SLOW = 180_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const tuning = (name: string) => fs.readFileSync(path.join(root, 'data', 'documents', 'tuning', name));
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;
const now = new Date('2026-06-01T00:00:00Z');

afterAll(() => stopOcr());

describe('the MRZ model is shipped, not fetched', () => {
  it('models/mrz holds the model whose SHA-256 its README records, with the BSD-3-Clause licence', () => {
    const dir = path.join(root, 'models', 'mrz');
    const sha = createHash('sha256')
      .update(fs.readFileSync(path.join(dir, 'mrz.traineddata')))
      .digest('hex');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toContain(sha);
    expect(fs.readFileSync(path.join(dir, 'LICENSE'), 'utf8')).toContain('BSD 3-Clause License');
  });

  it.each([
    ['src', 'engine', 'document'],
    ['dist', 'engine', 'document'],
    ['dist-eval', 'src', 'engine', 'document'],
  ])('is found from %s/… (the source, the build and the eval build)', (...parts) => {
    expect(mrzModelDir(path.join(root, ...parts))).toBe(path.join(root, 'models', 'mrz'));
  });
});

describe('real tuning pictures the zone model reads', () => {
  it(
    'a Polish specimen whose band the ink search cuts short reads across the page: every check digit passes, nothing refused',
    async () => {
      const analysis = await analyseDocument({ front: tuning('passporteye__100_pass-polx.jpg') }, { now });
      expect(analysis).toMatchObject({ outcome: 'read', mrz_valid: true });
      expect(analysis.read).toMatchObject({
        number: 'AA0000000',
        date_of_birth: '1960-02-08',
        expiry_date: '2014-12-31',
      });
      expect(documentResult(analysis, snapshot, now).reasonCodes).not.toContain('ID_INVALID');
    },
    SLOW,
  );

  it(
    'a Dutch specimen whose band gives no text reads as a whole page',
    async () => {
      const analysis = await analyseDocument({ front: tuning('passporteye__98_pass-nld.jpg') }, { now });
      expect(analysis).toMatchObject({ outcome: 'read', mrz_valid: true });
      expect(analysis.read).toMatchObject({
        number: 'XA0000014',
        date_of_birth: '1971-10-19',
        expiry_date: '2006-04-12',
      });
    },
    SLOW,
  );
});

describe('contamination check (eval/documents/overlap.ts)', () => {
  it('counts edits with a band: exact, near and far lines', () => {
    expect(editDistance('P<UTOERIKSSON<<ANNA', 'P<UTOERIKSSON<<ANNA')).toBe(0);
    expect(editDistance('L898902C36UTO', 'L898902C3UTO')).toBe(1);
    expect(editDistance('L898902C36UTO', 'L8989O2C3UT0')).toBe(3);
    expect(editDistance('ABCDEFGH', 'ABCDEFGHXYZ')).toBe(3);
  });
});
