// The synthetic robustness corpus (test/engine/corpus/robustness.ts) varies what real captures
// vary, and each case's truth is what its zone says. File and pixel checks only: no OCR.
import sharp from 'sharp';
import { checkDigit } from '../../src/engine/document/mrz.js';
import { ROBUSTNESS_CONDITIONS, capture, robustnessCases } from '../engine/corpus/robustness.js';
import { CARD, ZONE_FONTS, person, renderSynthetic, seeded, zoneOf } from '../engine/corpus/robustness-render.js';

const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);

describe('synthetic zones', () => {
  it('gives every person valid TD1, TD2 and TD3 zones stating their number and dates', () => {
    const random = seeded(7);
    for (let i = 0; i < 20; i++) {
      const p = person(random);
      const [a, b] = zoneOf(p, 'TD3');
      expect([a.length, b.length]).toEqual([44, 44]);
      expect(b.slice(0, 9).replace(/</g, '')).toBe(p.number);
      expect(checkDigit(b.slice(0, 9))).toBe(b[9]);
      expect(b.slice(13, 19)).toBe(yymmdd(p.birth));
      expect(checkDigit(b.slice(0, 10) + b.slice(13, 20) + b.slice(21, 43))).toBe(b[43]);
      const td1 = zoneOf(p, 'TD1');
      expect(td1.map((l) => l.length)).toEqual([30, 30, 30]);
      expect(checkDigit(td1[0].slice(5, 30) + td1[1].slice(0, 7) + td1[1].slice(8, 15) + td1[1].slice(18, 29))).toBe(
        td1[1][29],
      );
      const td2 = zoneOf(p, 'TD2');
      expect(checkDigit(td2[1].slice(0, 10) + td2[1].slice(13, 20) + td2[1].slice(21, 35))).toBe(td2[1][35]);
    }
  });

  it('is the same corpus on every run (one seed)', () => {
    expect(robustnessCases(2).map((c) => c.truth)).toEqual(robustnessCases(2).map((c) => c.truth));
    expect(new Set(robustnessCases(2).map((c) => c.truth.document_number)).size).toBeGreaterThan(20);
    const pairs = new Set(robustnessCases(1).map((c) => `${c.layout}/${c.font}`));
    expect(pairs.size).toBeGreaterThan(5);
  });

  it.each([1, 2])(
    'covers every condition, the three layouts and every zone font (%i per condition)',
    (perCondition) => {
      const cases = robustnessCases(perCondition);
      expect(new Set(cases.map((c) => c.condition))).toEqual(new Set(ROBUSTNESS_CONDITIONS));
      expect(new Set(cases.map((c) => c.layout))).toEqual(new Set(['TD1', 'TD2', 'TD3']));
      expect(new Set(cases.map((c) => c.font))).toEqual(new Set(ZONE_FONTS.map((f) => f.name)));
    },
  );
});

describe('capture conditions', () => {
  const style = { font: ZONE_FONTS[0], letterSpacing: 1024, background: 'guilloche' as const, ink: '#161616' };
  let flat: Buffer;
  beforeAll(async () => {
    flat = await renderSynthetic(person(seeded(3)), 'TD3', style, seeded(3));
  });

  it('draws the zone in the shipped OCR-B (ink in the zone band, the card size of TD3)', async () => {
    const meta = await sharp(flat).metadata();
    expect([meta.width, meta.height]).toEqual([CARD.TD3.width, CARD.TD3.height]);
    const band = await sharp(flat)
      .extract({ left: 0, top: CARD.TD3.height - 150, width: CARD.TD3.width, height: 110 })
      .greyscale()
      .raw()
      .toBuffer();
    expect(band.filter((v) => v < 80).length).toBeGreaterThan(5000);
    // The font file is used, not a fallback: the same zone in the monospace stand-in draws other pixels.
    const mono = await renderSynthetic(person(seeded(3)), 'TD3', { ...style, font: ZONE_FONTS[2] }, seeded(3));
    const monoBand = await sharp(mono)
      .extract({ left: 0, top: CARD.TD3.height - 150, width: CARD.TD3.width, height: 110 })
      .greyscale()
      .raw()
      .toBuffer();
    expect(band.equals(monoBand)).toBe(false);
  });

  it('stores an EXIF orientation tag on the quarter-turned phone picture', async () => {
    const meta = await sharp(await capture(flat, 'exif_orientation', 'TD3', seeded(1))).metadata();
    expect(meta.orientation).toBe(6);
    expect(meta.height! > meta.width!).toBe(true);
  });

  it('turns the picture for rotated_90 and tilts it for skew_30', async () => {
    const turned = await sharp(await capture(flat, 'rotated_90', 'TD3', seeded(1))).metadata();
    expect(turned.height! > turned.width!).toBe(true);
    const skewed = await sharp(await capture(flat, 'skew_30', 'TD3', seeded(1))).metadata();
    expect(skewed.height! / skewed.width!).toBeGreaterThan(0.85);
  });

  it('scans small enough that zone characters are about 10 px high', async () => {
    const small = await sharp(await capture(flat, 'small_scan', 'TD3', seeded(1))).metadata();
    const scale = small.width! / (CARD.TD3.width + 60);
    expect(scale * 25).toBeGreaterThan(8);
    expect(scale * 25).toBeLessThan(12);
  });
});
