import { stringify, type Stringifier } from 'csv-stringify';

/** Characters a spreadsheet reads as the start of a formula (OWASP CSV injection), plus tab and CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell a spreadsheet would evaluate gets a leading apostrophe, so it is shown as text. */
export const neutraliseCell = (value: string): string => (FORMULA_START.test(value) ? `'${value}` : value);

/**
 * A CSV writer (csv-stringify does the quoting) with a header row, every string cell neutralised
 * against formula injection, dates as ISO 8601 and booleans as true/false.
 */
export function csvWriter(columns: readonly string[]): Stringifier {
  return stringify({
    header: true,
    columns: columns as string[],
    cast: {
      string: (value) => neutraliseCell(value),
      date: (value) => value.toISOString(),
      boolean: (value) => (value ? 'true' : 'false'),
    },
  });
}
