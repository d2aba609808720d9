import type { AmlSubject } from '../src/engine/aml/types.js';

/**
 * Labelled screening cases against the synthetic lists of data/aml: who should hit which entry
 * (`expect`: the entry id) and who must not hit anything (`expect`: null). Used by
 * `npm run engine:eval:aml` and by test/checks/engine-aml.test.ts.
 */
export interface AmlCase {
  label: string;
  condition:
    | 'exact'
    | 'reordered'
    | 'transliterated'
    | 'typo'
    | 'dob_within_one_year'
    | 'alias'
    | 'partial_date'
    | 'namesake'
    | 'unrelated';
  subject: AmlSubject;
  expect: string | null;
}

export const AML_CASES: AmlCase[] = [
  {
    label: 'exact name, date of birth and nationality',
    condition: 'exact',
    subject: { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: '1965-03-12', nationality: 'RUS' },
    expect: 'syn-p-0001',
  },
  {
    label: 'given and family names swapped',
    condition: 'reordered',
    subject: { firstName: 'SIDOROV', lastName: 'IVAN', dateOfBirth: '1965-03-12' },
    expect: 'syn-p-0001',
  },
  {
    label: 'Cyrillic full name',
    condition: 'transliterated',
    subject: { fullName: 'Иван Сидоров', dateOfBirth: '1965-03-12' },
    expect: 'syn-p-0001',
  },
  {
    label: 'one-letter typo in the surname',
    condition: 'typo',
    subject: { firstName: 'IVAN', lastName: 'SIDOROW', dateOfBirth: '1965-03-12' },
    expect: 'syn-p-0001',
  },
  {
    label: 'date of birth a year off',
    condition: 'dob_within_one_year',
    subject: { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: '1966-01-20' },
    expect: 'syn-p-0001',
  },
  {
    label: 'MRZ transliteration of umlauts (UE)',
    condition: 'transliterated',
    subject: { firstName: 'HANS JUERGEN', lastName: 'MUELLER', dateOfBirth: '1962-09-09', nationality: 'D' },
    expect: 'syn-p-0007',
  },
  {
    label: 'OFAC individual, surname-first list name',
    condition: 'reordered',
    subject: { firstName: 'BORIS', lastName: 'KAROLEV', dateOfBirth: '1970-08-04', nationality: 'RUS' },
    expect: '90001',
  },
  {
    label: 'OFAC a.k.a. from alt.csv',
    condition: 'alias',
    subject: { firstName: 'BORYS', lastName: 'KAROLEV', dateOfBirth: '1970-08-04' },
    expect: '90001',
  },
  {
    label: 'OFAC "DOB circa 1966"',
    condition: 'partial_date',
    subject: { firstName: 'SAMIR', lastName: 'HADDAD', dateOfBirth: '1966-05-05', nationality: 'LBN' },
    expect: '90002',
  },
  {
    label: 'Arabic name spelt differently, middle name omitted',
    condition: 'typo',
    subject: { firstName: 'MUHAMAD', lastName: 'AL RASHIDI', dateOfBirth: '1971-02-02', nationality: 'SYR' },
    expect: 'syn-p-0002',
  },
  {
    label: 'PEP with accents dropped',
    condition: 'exact',
    subject: { firstName: 'ELENA', lastName: 'VASQUEZ MORENO', dateOfBirth: '1958-11-02', nationality: 'VEN' },
    expect: 'syn-p-0003',
  },
  {
    label: 'Chinese name with the given name joined',
    condition: 'transliterated',
    subject: { firstName: 'WEILONG', lastName: 'ZHANG', dateOfBirth: '1980-07-15', nationality: 'CHN' },
    expect: 'syn-p-0004',
  },
  {
    label: 'OFAC Korean name reordered',
    condition: 'reordered',
    subject: { firstName: 'CHOL SU', lastName: 'PYON', dateOfBirth: '1975-02-15', nationality: 'PRK' },
    expect: '90003',
  },
  {
    label: 'OFAC month-only date of birth',
    condition: 'partial_date',
    subject: { firstName: 'VAN THANH', lastName: 'NGUYEN', dateOfBirth: '1979-06-10' },
    expect: '90007',
  },
  {
    label: 'Spanish double surname',
    condition: 'exact',
    subject: { firstName: 'CARLOS ALBERTO', lastName: 'MENDOZA RIVAS', dateOfBirth: '1968-11-22', nationality: 'MEX' },
    expect: '90006',
  },
  {
    label: 'Greek watchlist entry, Latin spelling',
    condition: 'transliterated',
    subject: { firstName: 'DIMITRIOS', lastName: 'PAPADOPOULOS', dateOfBirth: '1975-05-05', nationality: 'GRC' },
    expect: 'syn-p-0006',
  },
  {
    label: 'same name, born 25 years later',
    condition: 'namesake',
    subject: { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: '1990-01-01', nationality: 'RUS' },
    expect: null,
  },
  {
    label: 'feminine form, other date of birth',
    condition: 'namesake',
    subject: { firstName: 'IVANA', lastName: 'SIDOROVA', dateOfBirth: '1988-10-10' },
    expect: null,
  },
  {
    label: 'near surname, other date of birth',
    condition: 'namesake',
    subject: { firstName: 'SAMIRA', lastName: 'HADDADI', dateOfBirth: '1990-01-01' },
    expect: null,
  },
  {
    label: 'common name, other date of birth',
    condition: 'namesake',
    subject: { firstName: 'HANS', lastName: 'MUELLER', dateOfBirth: '1980-01-01', nationality: 'DEU' },
    expect: null,
  },
  {
    label: 'shorter Chinese name, other date of birth',
    condition: 'namesake',
    subject: { firstName: 'WEI', lastName: 'ZHANG', dateOfBirth: '1995-03-03', nationality: 'CHN' },
    expect: null,
  },
  {
    label: 'PEP surname only shared',
    condition: 'namesake',
    subject: { firstName: 'ELENA', lastName: 'MORENO', dateOfBirth: '1991-07-07', nationality: 'ESP' },
    expect: null,
  },
  {
    label: 'unrelated person',
    condition: 'unrelated',
    subject: { firstName: 'JANE', lastName: 'DOE', dateOfBirth: '1985-04-12', nationality: 'GBR' },
    expect: null,
  },
  {
    label: 'unrelated person sharing a first name',
    condition: 'unrelated',
    subject: { firstName: 'CARLOS', lastName: 'SANTANA', dateOfBirth: '1968-11-22', nationality: 'MEX' },
    expect: null,
  },
];
