import { stringify, type Stringifier } from 'csv-stringify';

/**
 * A cell a spreadsheet may evaluate (OWASP CSV injection): one starting with a formula
 * character (= + - @), its full-width or small form (＝ ＋ － ＠ ﹦ ﹢ ﹣, and the minus sign −,
 * which spreadsheets fold to ASCII), or with whitespace or an invisible character (tab, CR,
 * LF, space, no-break space, zero-width space, BOM, any format character), which spreadsheets
 * trim before reading what follows.
 */
const FORMULA_START = /^[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\u2212\s\p{Cf}\p{Zs}]/u;

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
