// The machine-readable zone's rules (ICAO 9303 field types): each field decoded in its own
// alphabet, fillers normalised, check digits never rewritten, alphanumeric repairs only where
// exactly one candidate passes, ambiguity never stored, visas recognised as visas.
import { checkDigit, documentTypeOf, findMrz, readMrzLines } from '../../src/engine/document/mrz.js';

const now = new Date('2026-06-01T00:00:00Z');
const pad = (value: string, length: number) => (value + '<'.repeat(length)).slice(0, length);
const withDigit = (value: string) => value + checkDigit(value);

/** A TD3 zone (or an MRV-A visa with code V) with real check digits. */
function td3(number: string, optional = '', code = 'P'): [string, string] {
  const n = withDigit(pad(number, 9));
  const birth = withDigit('740812');
  const expiry = withDigit('340415');
  if (code.startsWith('V'))
    return [pad(`${pad(code, 2)}UTOERIKSSON<<ANNA`, 44), pad(`${n}UTO${birth}F${expiry}${optional}`, 44)];
  const opt = withDigit(pad(optional, 14));
  return [
    pad(`${pad(code, 2)}UTOERIKSSON<<ANNA<MARIA`, 44),
    `${n}UTO${birth}F${expiry}${opt}${checkDigit(n + birth + expiry + opt)}`,
  ];
}

const setAt = (line: string, column: number, c: string) => line.slice(0, column) + c + line.slice(column + 1);

describe('numeric and alphabetic fields are decoded with their own alphabet', () => {
  it('letters read in a date become the digits they resemble; digits in a country code become letters', () => {
    const [l1, l2] = td3('L898902C3');
    const read = readMrzLines('TD3', [l1.replace('UTO', 'UT0'), l2.slice(0, 13) + '74O8I2' + l2.slice(19)], now);
    expect(read).toMatchObject({ valid: true, fields: { issuing_country: 'UTO', date_of_birth: '1974-08-12' } });
    expect(read.repairs.every((r) => r.by === 'format')).toBe(true);
  });

  it('a character no digit resembles in a date fails that field (nothing guessed)', () => {
    const [l1, l2] = td3('L898902C3');
    const read = readMrzLines('TD3', [l1, setAt(l2, 14, 'K')], now);
    expect(read.valid).toBe(false);
    expect(read.failed).toContain('date_of_birth');
  });
});

describe('fillers are normalised in every field', () => {
  it('`<` fillers in the optional data read as L and K leave a correct zone valid', () => {
    const [l1, l2] = td3('L898902C3', 'ZE184226B');
    const misread = setAt(setAt(l2, 38, 'L'), 40, 'K');
    expect(misread).not.toBe(l2);
    const read = readMrzLines('TD3', [l1, misread], now);
    expect(read).toMatchObject({ valid: true, fields: { document_number: 'L898902C3', optional: 'ZE184226B' } });
  });

  it('a filler read as K after the names is a filler', () => {
    const [l1, l2] = td3('L898902C3');
    const read = readMrzLines('TD3', [setAt(l1, 30, 'K'), l2], now);
    expect(read).toMatchObject({ valid: true, fields: { last_name: 'ERIKSSON', first_name: 'ANNA MARIA' } });
  });
});

describe('names', () => {
  it('a trailing run of fillers read as C, L and K is fillers even when no `<<<` was read', () => {
    const [l1, l2] = td3('L898902C3');
    const misread = l1.slice(0, 25) + 'CLCLLLLLLLLKLLCLCLL';
    const read = readMrzLines('TD3', [misread, l2], now);
    expect(read).toMatchObject({ valid: true, fields: { last_name: 'ERIKSSON', first_name: 'ANNA MARIA' } });
  });
});

describe('overlong lines', () => {
  it('a line where OCR split fillers into `<K`, `L` pairs is squeezed from its filler run and reads valid', () => {
    const [l1, l2] = td3('L898902C3', 'ZE184226B');
    const long1 = l1.slice(0, 26) + 'LLLLLLLLLLLLLKLLLLKLK<';
    const long2 = l2.slice(0, 37) + '<<<<<K' + l2.slice(42);
    expect(long1.length).toBeGreaterThan(44);
    const found = findMrz(`${long1}\n${long2}\n`, now);
    expect(found).toMatchObject({
      valid: true,
      fields: { document_number: 'L898902C3', optional: 'ZE184226B', first_name: 'ANNA MARIA' },
    });
  });
});

describe('check digits are never rewritten', () => {
  it('a lost composite check digit fails the zone; the number is not "repaired" to fit (CA000000 read CAOOOO00)', () => {
    const [l1, l2] = td3('CA000000');
    const misread = 'CAOOOO00' + l2.slice(8, 43); // the composite digit is lost
    const read = readMrzLines('TD3', [l1, misread], now);
    expect(read.valid).toBe(false);
    expect(read.failed).toContain('composite');
    expect(read.repairs.filter((r) => r.by === 'check_digit')).toEqual([]);
    expect(read.lines[1].slice(9, 10)).toBe(l2[9]);
  });

  it('a misread check digit fails its field instead of being recomputed', () => {
    const [l1, l2] = td3('L898902C3');
    const wrong = String((Number(l2[19]) + 3) % 10);
    const read = readMrzLines('TD3', [l1, setAt(l2, 19, wrong)], now);
    expect(read.valid).toBe(false);
    expect(read.failed).toContain('date_of_birth');
    expect(read.lines[1][19]).toBe(wrong);
  });

  it('a check digit read as a filler is unreadable: its field fails', () => {
    const [l1, l2] = td3('L898902C3');
    const read = readMrzLines('TD3', [l1, setAt(l2, 9, '<')], now);
    expect(read.failed).toContain('document_number');
  });
});

describe('alphanumeric fields: a swap only where exactly one candidate passes', () => {
  it('repairs O/0 in the number when one swap passes its check digit and the composite', () => {
    const [l1, l2] = td3('L898902C3');
    const read = readMrzLines('TD3', [l1, 'L8989O2C3' + l2.slice(9)], now);
    expect(read).toMatchObject({ valid: true, fields: { document_number: 'L898902C3' } });
    expect(read.repairs).toContainEqual(expect.objectContaining({ from: 'O', to: '0', by: 'check_digit' }));
  });

  it('a swap its own check digit accepts but the composite refuses is undone: the number stands as read and fails', () => {
    const [l1, l2] = td3('L898902C3');
    // The number's O repairs to 0 under its own check digit, but the composite's digit is wrong.
    const composite = l2[43] === '9' ? '8' : '9';
    const read = readMrzLines('TD3', [l1, 'L8989O2C3' + l2.slice(9, 43) + composite], now);
    expect(read.valid).toBe(false);
    expect(read.failed).toEqual(expect.arrayContaining(['composite', 'document_number']));
    expect(read.fields.document_number).toBe('L8989O2C3');
    expect(read.repairs.filter((r) => r.by === 'check_digit')).toEqual([]);
  });

  it('A00OO000 passing only because two O/0 swaps cancel is ambiguous: never stored as valid', () => {
    const [l1, l2] = td3('A0000000');
    const misread = 'A00OO000' + l2.slice(8);
    // The misreading passes the check digit on its own: that is the trap.
    expect(checkDigit(pad('A00OO000', 9))).toBe(l2[9]);
    const read = readMrzLines('TD3', [l1, misread], now);
    expect(read.valid).toBe(false);
    expect(read.ambiguous).toContain('document_number');
  });

  it('a letter shaped like 0 amid digits that passes only as a letter is unverifiable: ambiguous and unconfirmed, not failed (no evidence of alteration)', () => {
    // XA00O0074 passes its own check digit; XA0000074 does not: OCR may have misread two characters whose errors cancel.
    const [l1, l2] = td3('XA00O0074');
    const read = readMrzLines('TD3', [l1, l2], now);
    expect(read.valid).toBe(false);
    expect(read.ambiguous).toContain('document_number');
    expect(read.failed).toEqual([]);
    // Only a second reader seeing the O may settle it, as read (second-reader.ts confirmNumber).
    expect(read.unconfirmed).toEqual([{ field: 'document_number', line: 1, columns: [4] }]);
    // Repaired into that shape, it is never unconfirmed: a repair is settled by check digits alone.
    const repaired = readMrzLines('TD3', [l1, 'XA00O0O74' + l2.slice(9)], now);
    expect(repaired.unconfirmed).toBeUndefined();
  });

  it('a repaired reading is settled like a read one: ZEDDD509 repaired to ZE0DD509 is still ambiguous, never stored', () => {
    const [l1, l2] = td3('ZE000509');
    const read = readMrzLines('TD3', [l1, 'ZEDDD509' + l2.slice(8)], now);
    expect(read.valid).toBe(false);
    expect(read.ambiguous).toContain('document_number');
  });

  it('a run of zeros read as U (or ones as L) between letters is ambiguous: U weighs 30 and L 21, so no check digit sees the swap', () => {
    // CA00000AA (an identity card number) read CAUUUUUAA: every check digit still passes; never stored as a valid number.
    const [l1, l2] = td3('CA00000AA');
    const read = readMrzLines('TD3', [l1, 'CAUUUUUAA' + l2.slice(9)], now);
    expect(read.valid).toBe(false);
    expect(read.ambiguous).toContain('document_number');
    const ones = td3('XB111AB');
    const asL = readMrzLines('TD3', [ones[0], 'XBLLLAB<<' + ones[1].slice(9)], now);
    expect(asL.valid).toBe(false);
    expect(asL.ambiguous).toContain('document_number');
    // Read right, the same number is valid (the run rule concerns letters only).
    expect(readMrzLines('TD3', td3('CA00000AA'), now)).toMatchObject({
      valid: true,
      fields: { document_number: 'CA00000AA' },
    });
  });

  it('optional data passing its check digit as read stands as read: an L amid its digits (5188L2V) leaves no stored field in doubt', () => {
    const read = readMrzLines('TD3', td3('C19389564', '5188L2V'), now);
    expect(read).toMatchObject({
      valid: true,
      ambiguous: [],
      fields: { document_number: 'C19389564', optional: '5188L2V' },
    });
    // The number itself keeps the rule: XA00O0074 is still never stored.
    expect(readMrzLines('TD3', td3('XA00O0074', '5188L2V'), now).ambiguous).toContain('document_number');
  });

  it('a letter pair holding a letter no digit resembles is a group of letters: the French 08CD50338 is valid as read', () => {
    expect(readMrzLines('TD3', td3('08CD50338'), now)).toMatchObject({
      valid: true,
      fields: { document_number: '08CD50338' },
    });
    // A pair of lookalikes only (OD) amid digits stays uncertain.
    const pair = readMrzLines('TD3', td3('08OD50338'), now);
    expect(pair.valid).toBe(false);
    // A G no check digit tells from 6 stays uncertain beside any letter: AYL8N65EN read AYL8NG5EN is never valid.
    const [l1, l2] = td3('AYL8N65EN');
    const unseen = readMrzLines('TD3', [l1, 'AYL8NG5EN' + l2.slice(9)], now);
    expect(unseen.valid).toBe(false);
    expect(unseen.ambiguous).toContain('document_number');
  });

  it('a number passing as read with a U amid digits is unconfirmed: ambiguous until a second reader sees the U (MA4U9145J)', () => {
    const read = readMrzLines('TD3', td3('MA4U9145J'), now);
    expect(read).toMatchObject({
      valid: false,
      ambiguous: ['document_number'],
      unconfirmed: [{ field: 'document_number', line: 1, columns: [3] }],
    });
    // The same number with a 0 passes the same check digits: that is why it waits for a second reader.
    expect(readMrzLines('TD3', td3('MA409145J'), now).valid).toBe(true);
  });

  it('a G anywhere in the number is unconfirmed: LGR30V6VJ read LGR30VGVJ passes every check digit', () => {
    const [l1, l2] = td3('LGR30V6VJ');
    const read = readMrzLines('TD3', [l1, 'LGR30VGVJ' + l2.slice(9)], now);
    expect(read.valid).toBe(false);
    expect(read.unconfirmed).toEqual([{ field: 'document_number', line: 1, columns: [1, 6] }]);
    // Read right, its own G (column 1) still waits for the second reader; the 6 amid letters does not.
    expect(readMrzLines('TD3', [l1, l2], now).unconfirmed).toEqual([
      { field: 'document_number', line: 1, columns: [1] },
    ]);
    expect(readMrzLines('TD3', td3('LXR30V6VJ'), now).valid).toBe(true);
  });

  it('twin 0-shaped letters weighed 7 and 3 are ambiguous, their swaps cancelling (only glyphs may settle them): RT600XBZE read RT6OOXBZE passes every check digit', () => {
    const [l1, l2] = td3('RT600XBZE');
    const read = readMrzLines('TD3', [l1, 'RT6OOXBZE' + l2.slice(9)], now);
    expect(read.valid).toBe(false);
    expect(read.ambiguous).toContain('document_number');
    expect(read.unconfirmed).toEqual([{ field: 'document_number', line: 1, columns: [3, 4], cancelling: true }]);
    expect(readMrzLines('TD3', [l1, l2], now)).toMatchObject({ valid: true, fields: { document_number: 'RT600XBZE' } });
  });

  it('a repaired reading is never unconfirmed: only a number passing as read may be settled by a second reader', () => {
    const [l1, l2] = td3('MA4U9145J');
    const read = readMrzLines('TD3', [l1, 'MA4U914SJ' + l2.slice(9)], now);
    expect(read.valid).toBe(false);
    expect(read.unconfirmed).toBeUndefined();
  });

  it('two single swaps that both pass make the field ambiguous', () => {
    // Find a number and a misread where two different one-character swaps both satisfy the check digit.
    const [l1, l2] = td3('OO0O0O0O0');
    const read = readMrzLines('TD3', [l1, setAt(l2, 9, String((Number(l2[9]) + 4) % 10))], now);
    expect(read.valid).toBe(false);
    expect(read.failed.length + read.ambiguous.length).toBeGreaterThan(0);
    expect(read.repairs.filter((r) => r.by === 'check_digit')).toEqual([]);
  });
});

describe('formats', () => {
  it('reads a TD1 zone whose empty optional data was read with K and L for fillers', () => {
    const number = withDigit('NX47B1205');
    const l1 = `I<NLD${number}${'<'.repeat(15)}`;
    const l2head = `${withDigit('900228')}M${withDigit('311130')}NLD${'<'.repeat(11)}`;
    const l2 = l2head + checkDigit(l1.slice(5, 30) + l2head.slice(0, 7) + l2head.slice(8, 15) + l2head.slice(18, 29));
    const l3 = pad('DE<VRIES<<JAN', 30);
    const read = readMrzLines('TD1', [setAt(l1, 20, 'K'), setAt(l2, 22, 'L'), l3], now);
    expect(read).toMatchObject({
      valid: true,
      fields: { document_number: 'NX47B1205', date_of_birth: '1990-02-28', last_name: 'DE VRIES' },
    });
  });

  it.each([
    ['MRV-A', 'V', 44],
    ['MRV-B', 'V', 36],
  ] as const)('recognises a %s visa as a visa, not a passport', (format, code, length) => {
    const [l1, l2] = td3('L898902C3', '', code);
    const found = findMrz(`${l1.slice(0, length)}\n${l2.slice(0, length)}\n`, now);
    expect(found).toMatchObject({ format, valid: true });
    expect(documentTypeOf(found!.fields.document_code)).toBe('visa');
  });
});
