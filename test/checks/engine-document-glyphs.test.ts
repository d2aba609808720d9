// The zone's own glyphs as a character classifier (src/engine/document/glyphs.ts): a number whose
// doubtful characters no check digit can settle (twin letters whose swaps cancel, a letter amid
// digits) is settled by comparing those characters with the same characters elsewhere in the
// zone, and never when they are shaped like the digit they may be. Renders are drawn here in
// real OCR-B; the seed-33 render is a tuning case of the synthetic corpus.
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { documentResult } from '../../src/engine/document.js';
import { decodeBounded, isRefusal } from '../../src/engine/document/decode.js';
import {
  MIN_CHAR_HEIGHT,
  confirmByGlyphs,
  numberDisputedByGlyphs,
  seenAsRead,
  unlike,
  zoneGlyphs,
} from '../../src/engine/document/glyphs.js';
import { analyseDocument, readMrzLines, stopOcr } from '../../src/engine/document/index.js';
import { swapOf } from '../../src/engine/document/mrz.js';
import { confirmNumber } from '../../src/engine/document/second-reader.js';
import { readZone } from '../../src/engine/document/zone.js';
import { capture, robustnessCases } from '../engine/corpus/robustness.js';
import { type SynthPerson, ZONE_FONTS, renderSynthetic, seeded } from '../engine/corpus/robustness-render.js';

const SLOW = 180_000;
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;
const now = new Date('2026-06-01T00:00:00Z');

afterAll(() => stopOcr());

const holder = (number: string, birth = '1990-10-04'): SynthPerson => ({
  surname: 'DUBOIS',
  given: 'CHLOE',
  number,
  country: 'FRA',
  birth,
  expiry: '2033-01-10',
  sex: 'F',
});

/** A clean scan of a TD3 page whose zone is set in OCR-B, read by the live zone search. */
/** Each clean scan is read once and shared by the tests that look at it. */
const scans = new Map<string, ReturnType<typeof readScan>>();
const scanned = (number: string, birth?: string) => {
  const key = `${number} ${birth}`;
  if (!scans.has(key)) scans.set(key, readScan(number, birth));
  return scans.get(key)!;
};

async function readScan(number: string, birth?: string) {
  const style = { font: ZONE_FONTS[0], letterSpacing: 0, background: 'plain' as const, ink: '#1b1f2a' };
  const r = seeded(7);
  const image = await capture(await renderSynthetic(holder(number, birth), 'TD3', style, r), 'scan', 'TD3', r);
  const grey = await decodeBounded(image);
  if (isRefusal(grey)) throw new Error('refused');
  const zone = await readZone(grey, now);
  if (!zone.crop || !zone.band || !zone.mrz?.valid) throw new Error(`the render should read: ${zone.mrz?.lines}`);
  return { zone, crop: zone.crop, band: zone.band };
}

describe('the zone cut into glyphs', () => {
  it(
    'every character of a clean zone is cut, and each stands nearer a glyph of its own character than any other',
    async () => {
      const { zone, crop, band } = await scanned('RT600XBZE');
      const glyphs = await zoneGlyphs(crop, band.charHeight, zone.mrz!.lines);
      if (!glyphs) throw new Error('no glyphs');
      const all = zone.mrz!.lines.flatMap((l, k) => [...l].map((c, i) => ({ c, g: glyphs[k][i] })));
      expect(all.filter((x) => x.c !== '<' && !x.g)).toEqual([]);
      const repeated = all.filter((x, i) => x.g && x.c !== '<' && all.some((y, j) => j !== i && y.c === x.c && y.g));
      const misplaced = repeated.filter((x) => {
        const others = all.filter((y) => y !== x && y.g && y.c !== '<');
        const nearest = others.reduce((a, b) => (unlike(x.g!, a.g!) <= unlike(x.g!, b.g!) ? a : b));
        return nearest.c !== x.c;
      });
      expect(repeated.length).toBeGreaterThan(20);
      expect(misplaced.map((x) => x.c)).toEqual([]);
    },
    SLOW,
  );

  it(
    `a zone with characters under ${MIN_CHAR_HEIGHT} px gives no glyphs (too coarse to tell lookalikes apart)`,
    async () => {
      const { zone, crop } = await scanned('RT600XBZE');
      expect(await zoneGlyphs(crop, MIN_CHAR_HEIGHT - 1, zone.mrz!.lines)).toBeNull();
    },
    SLOW,
  );
});

describe('settling a number no check digit can', () => {
  it(
    'twin zeros misread as OO (RT600XBZE read RT6OOXBZE: the swaps cancel in every check digit) are not settled: the glyphs are zeros',
    async () => {
      const { zone, crop, band } = await scanned('RT600XBZE');
      const [l1, l2] = zone.mrz!.lines;
      const claimed = readMrzLines('TD3', [l1, 'RT6OO' + l2.slice(5)], now);
      expect(claimed.unconfirmed).toEqual([{ field: 'document_number', line: 1, columns: [3, 4], cancelling: true }]);
      expect(await confirmByGlyphs(crop, band.charHeight, claimed)).toBeNull();
      const glyphs = (await zoneGlyphs(crop, band.charHeight, zone.mrz!.lines))!;
      expect(seenAsRead(glyphs, claimed.lines, [{ line: 1, column: 3 }], swapOf)).toBe(false);
      // The English model may never settle swaps that cancel, even were it to see the Os.
      expect(await confirmNumber(crop, band, claimed)).toBeNull();
    },
    SLOW,
  );

  it(
    'twin Ds read right (RT6DDXBZE: D-for-0 swaps at weights 7 and 3 would cancel) are settled by their shapes and stored',
    async () => {
      const { zone, crop, band } = await scanned('RT6DDXBZE');
      const asRead = readMrzLines('TD3', zone.mrz!.lines, now);
      expect(asRead).toMatchObject({ valid: false, ambiguous: ['document_number'] });
      expect(asRead.unconfirmed?.[0]).toMatchObject({ columns: [3, 4], cancelling: true });
      expect(await confirmByGlyphs(crop, band.charHeight, asRead)).toMatchObject({
        valid: true,
        numberConfirmedBy: 'glyphs',
        fields: { document_number: 'RT6DDXBZE' },
      });
    },
    SLOW,
  );

  it(
    'through the whole check: EDMD12M1 (twin Ds four columns apart) on a desk photo is stored, settled by the glyphs',
    async () => {
      const c = robustnessCases(10, undefined, 33).find((x) => x.truth.document_number === 'EDMD12M1')!;
      expect(c.id).toBe('photo_desk/TD3/ocr-b-sharp');
      const analysis = await analyseDocument({ front: await c.image() }, { now });
      expect(analysis.sides[0].mrz).toMatchObject({ numberConfirmedBy: 'glyphs', ambiguous: [] });
      expect(documentResult(analysis, snapshot, now)).toMatchObject({
        verdict: 'approve',
        document: { number: 'EDMD12M1' },
      });
    },
    SLOW,
  );
});

describe('disputing a number a check digit passes', () => {
  it(
    "an 8 read as S (KDE4BN8E read KDE4BNSE: S and 8 weigh 28 and 8, so every check digit passes) is disputed by the zone's own 8s",
    async () => {
      const { zone, crop, band } = await scanned('KDE4BN8E', '1988-08-18');
      expect(await numberDisputedByGlyphs(crop, band.charHeight, zone.mrz!)).toBe(false);
      const [l1, l2] = zone.mrz!.lines;
      const claimed = readMrzLines('TD3', [l1, 'KDE4BNSE' + l2.slice(8)], now);
      expect(claimed).toMatchObject({ valid: true, fields: { document_number: 'KDE4BNSE' } });
      expect(await numberDisputedByGlyphs(crop, band.charHeight, claimed)).toBe(true);
    },
    SLOW,
  );

  it(
    "a 0 read as U (MA409145J read MA4U9145J) is disputed by the zone's zeros, against its own Us (DUBOIS)",
    async () => {
      const { zone, crop, band } = await scanned('MA409145J');
      expect(await numberDisputedByGlyphs(crop, band.charHeight, zone.mrz!)).toBe(false);
      const [l1, l2] = zone.mrz!.lines;
      const claimed = readMrzLines('TD3', [l1, 'MA4U' + l2.slice(4)], now);
      expect(claimed.fields.document_number).toBe('MA4U9145J');
      expect(await numberDisputedByGlyphs(crop, band.charHeight, { ...claimed, valid: true, ambiguous: [] })).toBe(
        true,
      );
    },
    SLOW,
  );
});
