/**
 * ICAO 9303 machine-readable zones: travel documents TD1, TD2, TD3 and visas MRV-A, MRV-B; and
 * one national layout of ICAO's TD2 shape, the French identity card of 1988-2021 (`FRA-ID`).
 */
export type MrzFormat = 'TD1' | 'TD2' | 'TD3' | 'MRV-A' | 'MRV-B' | 'FRA-ID';

export const SHAPES: Record<MrzFormat, { lines: number; length: number }> = {
  TD1: { lines: 3, length: 30 },
  TD2: { lines: 2, length: 36 },
  TD3: { lines: 2, length: 44 },
  'MRV-A': { lines: 2, length: 44 },
  'MRV-B': { lines: 2, length: 36 },
  'FRA-ID': { lines: 2, length: 36 },
};

/**
 * The field types of ICAO 9303: `numeric` (dates), `digit` (a check digit), `alpha` (codes,
 * countries), `names`, `alnum` (document number, optional data), `sex`.
 */
export type FieldKind = 'numeric' | 'digit' | 'alpha' | 'names' | 'alnum' | 'sex';

export interface FieldSpec {
  name: string;
  line: number;
  start: number;
  end: number;
  kind: FieldKind;
  /** Where the field's own check digit stands. */
  check?: [number, number];
}

export interface FormatSpec {
  fields: FieldSpec[];
  composite?: { digit: [number, number]; parts: [number, number, number][] };
}

const f = (
  name: string,
  line: number,
  start: number,
  end: number,
  kind: FieldKind,
  check?: [number, number],
): FieldSpec => ({ name, line, start, end, kind, check });
const digit = (name: string, line: number, column: number) => f(`${name}_check`, line, column, column + 1, 'digit');

/** The two-line layouts (TD2, TD3 and the visas) share everything up to the optional data. */
function twoLine(length: number, visa: boolean): FormatSpec {
  const fields = [
    f('document_code', 0, 0, 2, 'alpha'),
    f('issuing_country', 0, 2, 5, 'alpha'),
    f('names', 0, 5, length, 'names'),
    f('document_number', 1, 0, 9, 'alnum', [1, 9]),
    digit('document_number', 1, 9),
    f('nationality', 1, 10, 13, 'alpha'),
    f('date_of_birth', 1, 13, 19, 'numeric', [1, 19]),
    digit('date_of_birth', 1, 19),
    f('sex', 1, 20, 21, 'sex'),
    f('expiry_date', 1, 21, 27, 'numeric', [1, 27]),
    digit('expiry_date', 1, 27),
  ];
  if (visa) return { fields: [...fields, f('optional', 1, 28, length, 'alnum')] };
  if (length === 44) {
    return {
      fields: [
        ...fields,
        f('optional', 1, 28, 42, 'alnum', [1, 42]),
        digit('optional', 1, 42),
        digit('composite', 1, 43),
      ],
      composite: {
        digit: [1, 43],
        parts: [
          [1, 0, 10],
          [1, 13, 20],
          [1, 21, 43],
        ],
      },
    };
  }
  return {
    fields: [...fields, f('optional', 1, 28, 35, 'alnum'), digit('composite', 1, 35)],
    composite: {
      digit: [1, 35],
      parts: [
        [1, 0, 10],
        [1, 13, 20],
        [1, 21, 35],
      ],
    },
  };
}

/**
 * The French identity card (1988-2021): line 1 `IDFRA`, the surname (25) and the issuing office
 * (6); line 2 the card number (12: year and month of issue, department, sequence) and its check
 * digit, the given names (14), the birth date and its check digit, the sex, and a composite
 * check digit over line 1 and the rest of line 2. No expiry and no nationality in the zone.
 */
const FRENCH_ID: FormatSpec = {
  fields: [
    f('document_code', 0, 0, 2, 'alpha'),
    f('issuing_country', 0, 2, 5, 'alpha'),
    f('surname', 0, 5, 30, 'names'),
    f('office', 0, 30, 36, 'alnum'),
    f('document_number', 1, 0, 12, 'alnum', [1, 12]),
    digit('document_number', 1, 12),
    f('given_names', 1, 13, 27, 'names'),
    f('date_of_birth', 1, 27, 33, 'numeric', [1, 33]),
    digit('date_of_birth', 1, 33),
    f('sex', 1, 34, 35, 'sex'),
    digit('composite', 1, 35),
  ],
  composite: {
    digit: [1, 35],
    parts: [
      [0, 0, 36],
      [1, 0, 35],
    ],
  },
};

export const FORMATS: Record<MrzFormat, FormatSpec> = {
  'FRA-ID': FRENCH_ID,
  TD3: twoLine(44, false),
  TD2: twoLine(36, false),
  'MRV-A': twoLine(44, true),
  'MRV-B': twoLine(36, true),
  TD1: {
    fields: [
      f('document_code', 0, 0, 2, 'alpha'),
      f('issuing_country', 0, 2, 5, 'alpha'),
      f('document_number', 0, 5, 14, 'alnum', [0, 14]),
      digit('document_number', 0, 14),
      f('optional', 0, 15, 30, 'alnum'),
      f('date_of_birth', 1, 0, 6, 'numeric', [1, 6]),
      digit('date_of_birth', 1, 6),
      f('sex', 1, 7, 8, 'sex'),
      f('expiry_date', 1, 8, 14, 'numeric', [1, 14]),
      digit('expiry_date', 1, 14),
      f('nationality', 1, 15, 18, 'alpha'),
      f('optional_2', 1, 18, 29, 'alnum'),
      digit('composite', 1, 29),
      f('names', 2, 0, 30, 'names'),
    ],
    composite: {
      digit: [1, 29],
      parts: [
        [0, 5, 30],
        [1, 0, 7],
        [1, 8, 15],
        [1, 18, 29],
      ],
    },
  },
};

/** A zone's format from its shape and its document code: a `V` code on a two-line zone is a visa; `IDFRA` on TD2's shape the French card. */
export function formatOf(shape: 'TD1' | 'TD2' | 'TD3', firstLine: string): MrzFormat {
  if (shape === 'TD2' && firstLine.startsWith('IDFRA')) return 'FRA-ID';
  if (shape !== 'TD1' && firstLine.startsWith('V')) return shape === 'TD3' ? 'MRV-A' : 'MRV-B';
  return shape;
}
