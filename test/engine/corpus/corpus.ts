import { HOLDERS, aamva, corruptCheckDigit, td1, td3 } from './documents.js';
import { applyCondition, type Condition } from './conditions.js';
import { blankSurface, idCardBack, idCardFront, licenceBack, licenceFront, passportPage } from './render.js';

/** What a document case should give when read from a good capture. */
export interface Expected {
  mrz_valid: boolean | null;
  barcode_consistent: boolean | null;
  number?: string;
  date_of_birth?: string;
  expiry_date?: string;
  /** The document check's reason code when read from a good capture (none: approve). */
  reason?: 'ID_INVALID' | 'DOCUMENT_EXPIRED' | 'IMAGE_UNREADABLE';
}

export interface DocumentCase {
  name: string;
  kind: 'passport' | 'id_card' | 'driving_licence' | 'none';
  render(): Promise<{ front: Buffer; back?: Buffer }>;
  expected: Expected;
}

const { anna, jan, lena, john } = HOLDERS;

/** The documents of the corpus (each then photographed under every condition). */
export const DOCUMENT_CASES: DocumentCase[] = [
  {
    name: 'passport_valid',
    kind: 'passport',
    render: async () => ({ front: await passportPage(anna, td3(anna)) }),
    expected: { mrz_valid: true, barcode_consistent: null, number: anna.number, date_of_birth: anna.birth, expiry_date: anna.expiry },
  },
  {
    name: 'passport_forged_mrz',
    kind: 'passport',
    render: async () => ({ front: await passportPage(anna, corruptCheckDigit(td3(anna), 'TD3')) }),
    expected: { mrz_valid: false, barcode_consistent: null, reason: 'ID_INVALID' },
  },
  {
    name: 'passport_printed_number_differs',
    kind: 'passport',
    render: async () => ({ front: await passportPage(anna, td3(anna), { number: 'K4471936' }) }),
    expected: { mrz_valid: true, barcode_consistent: null, reason: 'ID_INVALID' },
  },
  {
    name: 'passport_expired',
    kind: 'passport',
    render: async () => ({ front: await passportPage(lena, td3(lena)) }),
    expected: { mrz_valid: true, barcode_consistent: null, number: lena.number, expiry_date: lena.expiry, reason: 'DOCUMENT_EXPIRED' },
  },
  {
    name: 'id_card_valid',
    kind: 'id_card',
    render: async () => ({ front: await idCardFront(jan), back: await idCardBack(td1(jan)) }),
    expected: { mrz_valid: true, barcode_consistent: null, number: jan.number, date_of_birth: jan.birth, expiry_date: jan.expiry },
  },
  {
    name: 'id_card_forged_mrz',
    kind: 'id_card',
    render: async () => ({ front: await idCardFront(jan), back: await idCardBack(corruptCheckDigit(td1(jan), 'TD1')) }),
    expected: { mrz_valid: false, barcode_consistent: null, reason: 'ID_INVALID' },
  },
  {
    name: 'licence_valid',
    kind: 'driving_licence',
    render: async () => ({ front: await licenceFront(john), back: await licenceBack(aamva(john)) }),
    expected: { mrz_valid: null, barcode_consistent: true, number: john.number, date_of_birth: john.birth, expiry_date: john.expiry },
  },
  {
    name: 'licence_barcode_birth_differs',
    kind: 'driving_licence',
    render: async () => ({ front: await licenceFront(john), back: await licenceBack(aamva(john, { birth: '1980-03-02' })) }),
    expected: { mrz_valid: null, barcode_consistent: false, reason: 'ID_INVALID' },
  },
  {
    name: 'no_document',
    kind: 'none',
    render: async () => ({ front: await blankSurface() }),
    expected: { mrz_valid: null, barcode_consistent: null, reason: 'IMAGE_UNREADABLE' },
  },
];

/** A case's images under a condition (both sides get it). */
export async function photograph(c: DocumentCase, condition: Condition): Promise<{ front: Buffer; back?: Buffer }> {
  const clean = await c.render();
  return {
    front: c.kind === 'none' ? clean.front : await applyCondition(clean.front, condition),
    back: clean.back ? await applyCondition(clean.back, condition) : undefined,
  };
}

export const byName = (name: string): DocumentCase => DOCUMENT_CASES.find((c) => c.name === name)!;
