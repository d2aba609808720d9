// The document check's analysis and verdict on rendered documents (test/engine/corpus and
// test/support/document-renders.ts): the verdict rules of issue 26 (a failed or uncertain read
// is never a final rejection; read first, gate second; printed fields compared only when
// located by label with confidence; visas refused as visas) and reading under the captures the
// issue names (EXIF, right angles, tilt, letter-spaced zones, TD1/TD2, small scans).
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { documentResult } from '../../src/engine/document.js';
import {
  aamvaFields,
  analyseDocument,
  checkDigit,
  combineSides,
  findMrz,
  readMrzLines,
  stopOcr,
  type SideAnalysis,
} from '../../src/engine/document/index.js';
import { printedDates, readPrinted } from '../../src/engine/document/printed.js';
import { EVIDENCE_CHAR_HEIGHT } from '../../src/engine/document/analyse.js';
import type { OcrLine } from '../../src/engine/document/ocr.js';
import { RETRYABLE_CODES } from '../../src/services/checks/index.js';
import { HOLDERS, aamva, td1, td3 } from '../engine/corpus/documents.js';
import { byName, photograph } from '../engine/corpus/corpus.js';
import type { Condition } from '../engine/corpus/conditions.js';
import {
  BERIT,
  dataPage,
  exifSideways,
  onDesk,
  specularGlare,
  turned,
  whitePaperScan,
  zone36,
  zone44,
} from '../support/document-renders.js';

const SLOW = 180_000;
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;
const now = new Date('2026-06-01T00:00:00Z');

afterAll(() => stopOcr());

async function analyse(name: string, condition: Condition = 'clean') {
  return verdictOf(await analyseDocument(await photograph(byName(name), condition), { now }));
}

async function analyseImage(front: Buffer) {
  return verdictOf(await analyseDocument({ front }, { now }));
}

const verdictOf = (analysis: Awaited<ReturnType<typeof analyseDocument>>) => ({
  analysis,
  result: documentResult(analysis, snapshot, now),
});

/** A spaced-zone passport page, as the outside renders print OCR-B (1250 x 880). */
const spacedPage = () => dataPage(BERIT, zone44(BERIT), { letterSpacing: 4.5, zoneSize: 30 });

describe('MRZ basics (ICAO 9303)', () => {
  it('computes the 7-3-1 check digit of the ICAO specimen', () => {
    expect(checkDigit('L898902C3')).toBe('6');
    expect(checkDigit('740812')).toBe('2');
    expect(checkDigit('<<<<<<<<<<<<<<')).toBe('0');
  });

  it('validates a TD3 and a TD1 zone built from the corpus holders', () => {
    expect(readMrzLines('TD3', td3(HOLDERS.anna), now)).toMatchObject({
      valid: true,
      fields: {
        document_number: 'L898902C3',
        date_of_birth: '1974-08-12',
        expiry_date: '2034-04-15',
        last_name: 'ERIKSSON',
      },
    });
    expect(readMrzLines('TD1', td1(HOLDERS.jan), now)).toMatchObject({
      valid: true,
      fields: { document_number: 'NX47B1205', date_of_birth: '1990-02-28', nationality: 'NLD' },
    });
  });

  it('does not repair a changed birth date: its check digit and the composite fail', () => {
    const [l1, l2] = td3(HOLDERS.anna);
    const forged = readMrzLines('TD3', [l1, l2.slice(0, 13) + '84' + l2.slice(15)], now);
    expect(forged.valid).toBe(false);
    expect(forged.failed).toEqual(expect.arrayContaining(['date_of_birth', 'composite']));
  });

  it('finds a zone among OCR lines with misread fillers and lengths', () => {
    const [l1, l2] = td3(HOLDERS.anna);
    const found = findMrz(`PASSPORT\nERIKSSON\n${l1.slice(0, 40)}\n${l2.replace('<<<<', '<<<<<<')}\n`, now);
    expect(found).toMatchObject({ format: 'TD3', valid: true });
  });

  it('reads printed dates in passport, European and US forms', () => {
    expect(printedDates('DATE OF BIRTH 12 AUG 1974 EXPIRY 15.04.2034 DOB 08/12/1974')).toEqual([
      '1974-08-12',
      '2034-04-15',
      '1974-08-12',
    ]);
  });

  it('parses AAMVA licence data into document fields', () => {
    expect(aamvaFields(aamva(HOLDERS.john))).toMatchObject({
      number: 'D1234562',
      last_name: 'PUBLIC',
      date_of_birth: '1974-08-12',
      expiry_date: '2031-01-15',
      issuing_country: 'USA',
    });
  });
});

/** A side as the analysis gives it, for the combining rules (no OCR). */
function side(overrides: Partial<SideAnalysis>): SideAnalysis {
  return {
    side: 'front',
    quality: {
      metrics: { width: 1400, height: 980, char_height: 30, sharpness: 2000, glare: 0, contrast: 50 },
      problems: [],
    },
    mrz: readMrzLines('TD3', td3(HOLDERS.anna), now),
    barcodeFound: false,
    barcode: null,
    printed: null,
    ...overrides,
  };
}
const labelled = (value: string, confidence: number) => ({
  dates: [],
  numbers: [],
  labelled: { number: { value, confidence } },
});

describe('verdict rules: a failed or uncertain read is never a final rejection', () => {
  it(
    'a forged zone on a clean capture, read the same way by two OCR passes, is ID_INVALID (positive evidence); nothing of it is stored',
    async () => {
      const { analysis, result } = await analyse('passport_forged_mrz');
      expect(analysis.mrz_valid).toBe(false);
      expect(analysis.outcome).toBe('contradicted');
      expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['ID_INVALID'] });
      expect(result.document).toBeUndefined();
      expect(result.evidence?.[0].analysis).toMatchObject({
        mrz_valid: false,
        mrz_failed: expect.arrayContaining(['date_of_birth']),
      });
    },
    SLOW,
  );

  it('the same failing zone read only once, or on a capture with a quality problem, or with an unreadable character, is review (MRZ_NOT_FOUND), never ID_INVALID', () => {
    const [l1, l2] = td3(HOLDERS.anna);
    const changed = readMrzLines('TD3', [l1, l2.slice(0, 13) + '84' + l2.slice(15)], now);
    expect(changed.valid).toBe(false);
    const once = documentResult(combineSides([side({ mrz: changed, mrzConfirmed: false })]), snapshot, now);
    expect(once).toMatchObject({ verdict: 'review', reasonCodes: ['MRZ_NOT_FOUND'] });
    const poor = side({ mrz: changed, mrzConfirmed: true });
    poor.quality = { ...poor.quality, problems: ['blurred'] };
    expect(documentResult(combineSides([poor]), snapshot, now)).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['IMAGE_QUALITY'],
    });
    const unreadable = readMrzLines('TD3', [l1, l2.slice(0, 13) + '8?' + l2.slice(15)], now);
    expect(documentResult(combineSides([side({ mrz: unreadable, mrzConfirmed: true })]), snapshot, now)).toMatchObject({
      verdict: 'review',
      reasonCodes: ['MRZ_NOT_FOUND'],
    });
    expect(documentResult(combineSides([side({ mrz: changed, mrzConfirmed: true })]), snapshot, now)).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['ID_INVALID'],
    });
  });

  it('a French identity card of 1994-2021 (IDFRA, 2 x 36, a national layout) is never ID_INVALID for failing TD2 check digits; the same failures on an ICAO TD2 zone are', () => {
    const line1 = 'IDFRA' + 'MARTIN'.padEnd(25, '<') + '750123';
    const line2 = '880692310585' + '6' + 'CHRISTIANE<<<<' + '680203' + '5' + 'F' + '9';
    const french = readMrzLines('TD2', [line1, line2], now);
    expect(french.valid).toBe(false);
    const result = documentResult(combineSides([side({ mrz: french, mrzConfirmed: true })]), snapshot, now);
    expect(result).toMatchObject({ verdict: 'review', reasonCodes: ['MRZ_NOT_FOUND'] });
    const [first, second] = zone36(BERIT);
    const birthDigit = second[14] === '8' ? '7' : '8';
    const icao = readMrzLines('TD2', [first, second.slice(0, 14) + birthDigit + second.slice(15)], now);
    expect(icao.valid).toBe(false);
    expect(documentResult(combineSides([side({ mrz: icao, mrzConfirmed: true })]), snapshot, now)).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['ID_INVALID'],
    });
  });

  it('an ambiguous zone (two readings pass) is never stored: review, no document', () => {
    const [l1, l2] = td3({ ...HOLDERS.anna, number: 'A0000000' });
    const ambiguous = readMrzLines('TD3', [l1, 'A00OO000' + l2.slice(8)], now);
    const result = documentResult(combineSides([side({ mrz: ambiguous })]), snapshot, now);
    expect(result).toMatchObject({ verdict: 'review', reasonCodes: ['MRZ_NOT_FOUND'] });
    expect(result.document).toBeUndefined();
  });

  it(
    'a failed read on a poor capture is a retryable IMAGE_QUALITY that says why',
    async () => {
      const { result } = await analyse('passport_valid', 'blur_heavy');
      expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['IMAGE_QUALITY'] });
      expect(RETRYABLE_CODES.has('IMAGE_QUALITY')).toBe(true);
      expect(result.evidence?.[0].analysis.problems).toContain('blurred');
    },
    SLOW,
  );

  it(
    'a final rejection needs positive evidence: a zone whose every check digit passes says expired',
    async () => {
      const { analysis, result } = await analyse('passport_expired');
      expect(analysis.mrz_valid).toBe(true);
      expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['DOCUMENT_EXPIRED'] });
    },
    SLOW,
  );

  it(
    'a picture with no document gives IMAGE_UNREADABLE; bytes that are not an image too',
    async () => {
      expect((await analyse('no_document')).result).toMatchObject({
        verdict: 'reject',
        reasonCodes: ['IMAGE_UNREADABLE'],
      });
      expect((await analyseImage(Buffer.from('not an image at all'))).result).toMatchObject({
        verdict: 'reject',
        reasonCodes: ['IMAGE_UNREADABLE'],
      });
    },
    SLOW,
  );
});

describe('verdict rules: read first, gate second', () => {
  it('quality problems never refuse a zone that reads with valid check digits', () => {
    const analysis = combineSides([
      side({ quality: { metrics: side({}).quality.metrics, problems: ['blurred', 'glare'] } }),
    ]);
    expect(analysis.outcome).toBe('read');
    expect(documentResult(analysis, snapshot, now)).toMatchObject({ verdict: 'approve' });
  });

  it(
    'a white-paper scan reads and is not counted as glare',
    async () => {
      const { analysis, result } = await analyseImage(await whitePaperScan(await spacedPage()));
      expect(analysis.sides[0].quality.metrics.glare).toBeLessThan(0.02);
      expect(result).toMatchObject({ verdict: 'approve' });
    },
    SLOW,
  );

  it(
    'a 640 px scan reads: resolution is judged by the zone character height, not pixel count',
    async () => {
      const { analysis, result } = await analyseImage(
        await onDesk(await spacedPage(), { width: 640, quality: 82, margin: 20 }),
      );
      expect(analysis.mrz_valid).toBe(true);
      expect(analysis.sides[0].quality.metrics.char_height).toBeGreaterThan(9);
      expect(result.verdict).toBe('approve');
    },
    SLOW,
  );

  it(
    'a specular highlight over the zone is glare: IMAGE_QUALITY (retryable) with glare as the reason',
    async () => {
      const { result } = await analyseImage(await specularGlare(await onDesk(await spacedPage())));
      expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['IMAGE_QUALITY'] });
      expect(result.evidence?.[0].analysis.problems).toContain('glare');
    },
    SLOW,
  );
});

describe('verdict rules: printed fields against the zone', () => {
  it(
    'a confidently located printed number that disagrees raises ID_INVALID',
    async () => {
      const { analysis, result } = await analyse('passport_printed_number_differs');
      expect(analysis.mrz_valid).toBe(true);
      expect(analysis.disagreements).toContain('printed_document_number');
      expect(result.reasonCodes).toContain('ID_INVALID');
    },
    SLOW,
  );

  it('an uncertain printed reading never raises ID_INVALID', () => {
    const unsure = combineSides([side({ printed: labelled('K4471936', 40) })]);
    expect(unsure.disagreements).toEqual([]);
    expect(documentResult(unsure, snapshot, now).verdict).toBe('approve');
    const sure = combineSides([side({ printed: labelled('K4471936', 95) })]);
    expect(documentResult(sure, snapshot, now).reasonCodes).toContain('ID_INVALID');
  });

  it("the next field's caption read where a surname should be is no located name, so never a disagreement (a Kosovan page's GIVEN NAMES)", () => {
    const line = (text: string, x: number, y: number): OcrLine => {
      const words = text.split(' ').map((word, i) => ({
        text: word,
        confidence: 95,
        bbox: { x0: x + i * 80, y0: y, x1: x + i * 80 + 70, y1: y + 12 },
      }));
      return { text, confidence: 95, bbox: { ...words[0]!.bbox, x1: words.at(-1)!.bbox.x1 }, words };
    };
    const caption = readPrinted([line('SURNAME', 10, 10), line('GIVEN NAMES', 10, 40)]);
    expect(caption.labelled.last_name).toBeUndefined();
    const named = readPrinted([line('SURNAME', 10, 10), line('HOXHA', 10, 26), line('GIVEN NAMES', 10, 40)]);
    expect(named.labelled.last_name).toMatchObject({ value: 'HOXHA', confidence: 95 });
  });

  it('a printed field that disagrees on a capture too coarse to be evidence is review (PRINTED_FIELDS_UNCERTAIN), never ID_INVALID; the zone is stored', () => {
    const coarse = (charHeight: number, problems: SideAnalysis['quality']['problems'] = []) =>
      side({
        quality: {
          metrics: { width: 376, height: 265, char_height: charHeight, sharpness: 2000, glare: 0, contrast: 50 },
          problems,
        },
        printed: labelled('K4471936', 95),
      });
    // A small scan (zone characters of 11 px): its printed 2034-03-15 for the zone's 2034-05-15 was a misread.
    const small = combineSides([coarse(11)]);
    expect(small).toMatchObject({ disagreements: [], doubtful: ['printed_document_number'] });
    expect(documentResult(small, snapshot, now)).toMatchObject({
      verdict: 'review',
      reasonCodes: ['PRINTED_FIELDS_UNCERTAIN'],
      document: { number: 'L898902C3' },
    });
    expect(documentResult(combineSides([coarse(30, ['glare'])]), snapshot, now).verdict).toBe('review');
    // At evidence grade the same disagreement is ID_INVALID.
    expect(documentResult(combineSides([coarse(EVIDENCE_CHAR_HEIGHT)]), snapshot, now).reasonCodes).toContain(
      'ID_INVALID',
    );
  });

  it('a printed number cut off at the frame is no disagreement', () => {
    const cut = combineSides([side({ printed: labelled('L898902C', 95) })]);
    expect(cut.disagreements).toEqual([]);
  });

  it('a confident printed number within two edits of the zone is a misread of one of them (a turned page gave YCRUOVA4T for YCRU0V4TJ): the number is ambiguous, review, nothing stored, never ID_INVALID; three edits disagree', () => {
    // The zone reads L898902C3: an A inserted and the last 3 lost at the frame is a misreading, not another number;
    // which reading is wrong cannot be told (a zone's two misreads can cancel in its check digits), so a person looks.
    const misread = combineSides([side({ printed: labelled('L8989A02C', 95) })]);
    expect(misread).toMatchObject({ disagreements: [], mrz_valid: false });
    expect(misread.sides[0].mrz?.ambiguous).toContain('document_number');
    const result = documentResult(misread, snapshot, now);
    expect(result).toMatchObject({ verdict: 'review', reasonCodes: ['MRZ_NOT_FOUND'] });
    // Nothing is stored: the zone's number may be the wrong one.
    expect(result.document).toBeUndefined();
    // Equal once OCR confusions are folded (a printed O for the zone's 0) is the same number: approved.
    expect(documentResult(combineSides([side({ printed: labelled('L8989O2C3', 95) })]), snapshot, now).verdict).toBe(
      'approve',
    );
    const other = combineSides([side({ printed: labelled('X898A02C7', 95) })]);
    expect(documentResult(other, snapshot, now).reasonCodes).toContain('ID_INVALID');
  });

  it("a confident printed birth date one digit off the zone's (a printed 10 read 19) is a misread, not a forgery: review (PRINTED_FIELDS_UNCERTAIN), the zone's date stored, never ID_INVALID; two digits off disagree", () => {
    // Anna's zone says 1974-08-12 and passes its check digits, which catch any single changed digit in it.
    const printedBirth = (value: string) =>
      side({ printed: { dates: [value], numbers: [], labelled: { date_of_birth: { value, confidence: 95 } } } });
    const misread = combineSides([printedBirth('1974-08-19')]);
    expect(misread).toMatchObject({ disagreements: [], doubtful: ['printed_date_of_birth'], mrz_valid: true });
    const result = documentResult(misread, snapshot, now);
    expect(result).toMatchObject({ verdict: 'review', reasonCodes: ['PRINTED_FIELDS_UNCERTAIN'] });
    expect(result.document).toMatchObject({ number: 'L898902C3', date_of_birth: '1974-08-12' });
    // The same date printed: approved; two digits off (or another date): ID_INVALID, as before.
    expect(documentResult(combineSides([printedBirth('1974-08-12')]), snapshot, now).verdict).toBe('approve');
    for (const other of ['1974-08-21', '1979-03-12'])
      expect(documentResult(combineSides([printedBirth(other)]), snapshot, now).reasonCodes).toContain('ID_INVALID');
  });

  it('a printed number read with a character or two inserted, or one dropped, and nothing else changed is the same number: approved', () => {
    // A page held 26° askew: the English model read the printed LAHHW5EU as LAHHWS5EU (docread11).
    for (const printed of ['L8989S02C3', 'L89A8902C3', 'L8989X02CK3', 'L89892C3'])
      expect(documentResult(combineSides([side({ printed: labelled(printed, 95) })]), snapshot, now)).toMatchObject({
        verdict: 'approve',
        document: { number: 'L898902C3' },
      });
    // One inserted and one changed is still a near miss (review), and three inserted disagree.
    expect(documentResult(combineSides([side({ printed: labelled('L8989S02C7', 95) })]), snapshot, now).verdict).toBe(
      'review',
    );
    expect(
      documentResult(combineSides([side({ printed: labelled('L8A98X9K02C3', 95) })]), snapshot, now).reasonCodes,
    ).toContain('ID_INVALID');
  });

  it(
    'a personal number and an issue date printed beside the fields are not taken for the document number and birth date',
    async () => {
      const { analysis, result } = await analyseImage(await spacedPage());
      expect(analysis.sides[0].printed?.labelled).toMatchObject({
        number: { value: 'NK3094517' },
        date_of_birth: { value: '1988-03-09' },
      });
      expect(analysis.disagreements).toEqual([]);
      expect(result).toMatchObject({
        verdict: 'approve',
        document: { number: 'NK3094517', date_of_birth: '1988-03-09' },
      });
    },
    SLOW,
  );

  it(
    'a licence whose barcode birth date disagrees with the labelled printed one: ID_INVALID',
    async () => {
      const { analysis, result } = await analyse('licence_barcode_birth_differs', 'photo');
      expect(analysis.barcode_consistent).toBe(false);
      expect(result.reasonCodes).toContain('ID_INVALID');
    },
    SLOW,
  );
});

describe('visas are recognised as visas', () => {
  it(
    'an MRV-A visa page is refused as a document type, not read as a passport',
    async () => {
      const { analysis, result } = await analyseImage(await dataPage(BERIT, zone44(BERIT, 'VC'), { title: 'VISA' }));
      expect(analysis.sides[0].mrz?.format).toBe('MRV-A');
      expect(result).toMatchObject({
        verdict: 'reject',
        reasonCodes: ['DOCUMENT_TYPE_NOT_ACCEPTED'],
        document: { type: 'visa' },
      });
    },
    SLOW,
  );
});

describe('reading: orientation, tilt, layouts', () => {
  it(
    'reads a valid passport photographed on a desk: the identity fields, approve',
    async () => {
      const { analysis, result } = await analyse('passport_valid', 'photo');
      expect(analysis.read).toMatchObject({
        type: 'passport',
        number: 'L898902C3',
        date_of_birth: '1974-08-12',
        expiry_date: '2034-04-15',
        issuing_country: 'UTO',
        last_name: 'ERIKSSON',
      });
      expect(result).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    },
    SLOW,
  );

  it(
    'reads a page stored sideways with an EXIF orientation',
    async () => {
      const { analysis } = await analyseImage(await exifSideways(await onDesk(await spacedPage(), { angle: 1 })));
      expect(analysis).toMatchObject({ mrz_valid: true, read: { number: 'NK3094517' } });
    },
    SLOW,
  );

  it.each([90, 180, 270] as const)(
    'reads a page turned %i degrees',
    async (angle) => {
      const { analysis } = await analyseImage(await turned(await spacedPage(), angle));
      expect(analysis).toMatchObject({ mrz_valid: true, read: { number: 'NK3094517' } });
    },
    SLOW,
  );

  it(
    'reads a desk photo tilted 20 degrees with the document filling a third of the frame',
    async () => {
      const { analysis } = await analyseImage(
        await onDesk(await spacedPage(), { angle: 20, margin: 420, width: 2000 }),
      );
      expect(analysis).toMatchObject({ mrz_valid: true, read: { number: 'NK3094517' } });
    },
    SLOW,
  );

  it(
    'reads a clean letter-spaced zone (1250 x 880) and a photographed copy of it (2 degrees, blur, JPEG)',
    async () => {
      expect((await analyseImage(await spacedPage())).analysis.mrz_valid).toBe(true);
      const photo = await onDesk(await spacedPage(), { angle: 2, blur: 1.1, quality: 60 });
      expect((await analyseImage(photo)).result).toMatchObject({ verdict: 'approve' });
    },
    SLOW,
  );

  it(
    'reads a TD1 zone on the back of an identity card and a TD2 card',
    async () => {
      const card = await analyse('id_card_valid', 'photo');
      expect(card.analysis.read).toMatchObject({ type: 'id_card', number: 'NX47B1205', date_of_birth: '1990-02-28' });
      expect(card.result.verdict).toBe('approve');
      const td2 = await analyseImage(
        await dataPage(BERIT, zone36(BERIT), { width: 1050, height: 740, title: 'IDENTITY CARD' }),
      );
      expect(td2.analysis.sides[0].mrz).toMatchObject({ format: 'TD2', valid: true });
      expect(td2.result.verdict).toBe('approve');
    },
    SLOW,
  );

  it(
    'reads the PDF417 of a licence and finds it consistent with the labelled printed front',
    async () => {
      const { analysis, result } = await analyse('licence_valid', 'photo');
      expect(analysis.barcode_consistent).toBe(true);
      expect(analysis.read).toMatchObject({ type: 'driving_licence', number: 'D1234562', date_of_birth: '1974-08-12' });
      expect(result.verdict).toBe('approve');
    },
    SLOW,
  );
});
