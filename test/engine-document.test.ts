// The document check's analysis on the rendered corpus (test/engine/corpus): MRZ check digits
// and confirmed repairs, PDF417/AAMVA consistency, printed fields against the zone, and the
// image quality gate (IMAGE_QUALITY / IMAGE_UNREADABLE, never a silent pass).
import type { FlowSnapshot } from '../src/entities/verification.entity.js';
import { documentResult } from '../src/engine/document.js';
import { aamvaFields, analyseDocument, checkDigit, findMrz, readMrzLines, stopOcr } from '../src/engine/document/index.js';
import { printedDates } from '../src/engine/document/printed.js';
import { HOLDERS, aamva, td1, td3 } from './engine/corpus/documents.js';
import { byName, photograph } from './engine/corpus/corpus.js';
import type { Condition } from './engine/corpus/conditions.js';

const SLOW = 180_000;
const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;
const now = new Date('2026-06-01T00:00:00Z');

afterAll(() => stopOcr());

async function analyse(name: string, condition: Condition = 'clean') {
  const analysis = await analyseDocument(await photograph(byName(name), condition), { now });
  return { analysis, result: documentResult(analysis, snapshot, now) };
}

describe('MRZ check digits and repairs (ICAO 9303)', () => {
  it('computes the 7-3-1 check digit of the ICAO specimen', () => {
    expect(checkDigit('L898902C3')).toBe('6');
    expect(checkDigit('740812')).toBe('2');
    expect(checkDigit('<<<<<<<<<<<<<<')).toBe('0');
  });

  it('validates a TD3 and a TD1 zone built from the corpus holders', () => {
    expect(readMrzLines('TD3', td3(HOLDERS.anna), now)).toMatchObject({ valid: true, fields: { document_number: 'L898902C3', date_of_birth: '1974-08-12', expiry_date: '2034-04-15', last_name: 'ERIKSSON' } });
    expect(readMrzLines('TD1', td1(HOLDERS.jan), now)).toMatchObject({ valid: true, fields: { document_number: 'NX47B1205', date_of_birth: '1990-02-28', nationality: 'NLD' } });
  });

  it('repairs O/0 in the document number only where the check digit confirms it', () => {
    const [l1, l2] = td3(HOLDERS.anna);
    const misread = readMrzLines('TD3', [l1.replace('UTO', 'UT0'), 'L8989O2C3' + l2.slice(9)], now);
    expect(misread.valid).toBe(true);
    expect(misread.fields.document_number).toBe('L898902C3');
    expect(misread.repairs).toEqual(expect.arrayContaining([expect.objectContaining({ from: 'O', to: '0', by: 'check_digit' }), expect.objectContaining({ from: '0', to: 'O', by: 'format' })]));
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
    expect(printedDates('DATE OF BIRTH 12 AUG 1974 EXPIRY 15.04.2034 DOB 08/12/1974')).toEqual(['1974-08-12', '2034-04-15', '1974-08-12']);
  });

  it('parses AAMVA licence data into document fields', () => {
    expect(aamvaFields(aamva(HOLDERS.john))).toMatchObject({ number: 'D1234562', last_name: 'PUBLIC', date_of_birth: '1974-08-12', expiry_date: '2031-01-15', issuing_country: 'USA' });
  });
});

describe('the document check on rendered documents', () => {
  it('reads a valid passport photographed on a desk: mrz_valid, the identity fields, approve', async () => {
    const { analysis, result } = await analyse('passport_valid', 'photo');
    expect(analysis.mrz_valid).toBe(true);
    expect(analysis.read).toMatchObject({ type: 'passport', number: 'L898902C3', date_of_birth: '1974-08-12', expiry_date: '2034-04-15', issuing_country: 'UTO', last_name: 'ERIKSSON' });
    expect(result).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    expect(result.evidence?.[0].analysis).toMatchObject({ mrz_valid: true, country: 'UTO' });
  }, SLOW);

  it('reads a passport photographed 3 degrees off (deskewed)', async () => {
    const { analysis } = await analyse('passport_valid', 'rotated');
    expect(analysis.mrz_valid).toBe(true);
  }, SLOW);

  it('rejects a zone whose check digits fail with ID_INVALID (a forged birth date)', async () => {
    const { analysis, result } = await analyse('passport_forged_mrz');
    expect(analysis.mrz_valid).toBe(false);
    expect(result).toMatchObject({ verdict: 'reject' });
    expect(result.reasonCodes).toContain('ID_INVALID');
  }, SLOW);

  it('rejects a printed passport number that disagrees with the zone with ID_INVALID', async () => {
    const { analysis, result } = await analyse('passport_printed_number_differs');
    expect(analysis.mrz_valid).toBe(true);
    expect(result.reasonCodes).toContain('ID_INVALID');
  }, SLOW);

  it('rejects an expired passport with DOCUMENT_EXPIRED (the default expiry policy)', async () => {
    const { result } = await analyse('passport_expired');
    expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['DOCUMENT_EXPIRED'] });
  }, SLOW);

  it('reads a TD1 zone on the back of an identity card', async () => {
    const { analysis, result } = await analyse('id_card_valid', 'photo');
    expect(analysis.mrz_valid).toBe(true);
    expect(analysis.read).toMatchObject({ type: 'id_card', number: 'NX47B1205', date_of_birth: '1990-02-28' });
    expect(result.verdict).toBe('approve');
  }, SLOW);

  it('reads the PDF417 of a licence and finds it consistent with the printed front', async () => {
    const { analysis, result } = await analyse('licence_valid', 'photo');
    expect(analysis.barcode_consistent).toBe(true);
    expect(analysis.read).toMatchObject({ type: 'driving_licence', number: 'D1234562', date_of_birth: '1974-08-12' });
    expect(result.verdict).toBe('approve');
  }, SLOW);

  it('rejects a licence whose barcode birth date disagrees with the printed one (ID_INVALID)', async () => {
    const { analysis, result } = await analyse('licence_barcode_birth_differs');
    expect(analysis.barcode_consistent).toBe(false);
    expect(result.reasonCodes).toContain('ID_INVALID');
  }, SLOW);

  it.each([
    ['blur_heavy', 'IMAGE_QUALITY'],
    ['glare', 'IMAGE_QUALITY'],
    ['low_resolution', 'IMAGE_QUALITY'],
  ] as const)('a %s capture gives %s (retryable), never a pass', async (condition, code) => {
    const { result } = await analyse('passport_valid', condition);
    expect(result).toMatchObject({ verdict: 'reject', reasonCodes: [code] });
  }, SLOW);

  it('a picture with no document gives IMAGE_UNREADABLE', async () => {
    const { result } = await analyse('no_document');
    expect(result).toMatchObject({ verdict: 'reject', reasonCodes: ['IMAGE_UNREADABLE'] });
  }, SLOW);

  it('bytes that are not an image give IMAGE_UNREADABLE', async () => {
    const analysis = await analyseDocument({ front: Buffer.from('not an image at all') }, { now });
    expect(documentResult(analysis, snapshot, now)).toMatchObject({ verdict: 'reject', reasonCodes: ['IMAGE_UNREADABLE'] });
  }, SLOW);
});
