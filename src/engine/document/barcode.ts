import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseAamva } from 'aamva-parser';
import { type Grey, sharpOf } from './decode.js';
import { prepareZXingModule, readBarcodes } from 'zxing-wasm/reader';

/*
 * zxing-wasm loads its .wasm from a CDN by default; here it gets the file shipped inside
 * the npm package, compiled once per process on first use.
 */
const require = createRequire(import.meta.url);
let prepared = false;
function prepare(): void {
  if (prepared) return;
  prepareZXingModule({
    overrides: {
      wasmBinary: readFileSync(require.resolve('zxing-wasm/reader/zxing_reader.wasm')) as unknown as ArrayBuffer,
    },
    fireImmediately: false,
  });
  prepared = true;
}

/** The raw text of the first PDF417 on a working copy, or null. Large copies are scaled to 1600 px first. */
export async function readPdf417(grey: Grey): Promise<string | null> {
  prepare();
  const { data, info } = await sharpOf(grey)
    .resize({ width: 1600, height: 1600, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const found = await readBarcodes(
    {
      data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length),
      width: info.width,
      height: info.height,
      colorSpace: 'srgb',
    },
    { formats: ['PDF417'], textMode: 'Plain', tryHarder: true, tryRotate: true, maxNumberOfSymbols: 1 },
  );
  return found.find((b) => b.isValid)?.text ?? null;
}

export interface BarcodeFields {
  number?: string;
  last_name?: string;
  first_name?: string;
  date_of_birth?: string;
  expiry_date?: string;
  sex?: string;
  issuing_country?: string;
  state?: string;
}

const isoDay = (d: Date | null | undefined) =>
  d instanceof Date && !Number.isNaN(d.getTime()) ? d.toISOString().slice(0, 10) : undefined;

/** AAMVA licence data (US and Canadian PDF417) as document fields; null when it is not AAMVA. */
export function aamvaFields(text: string): BarcodeFields | null {
  if (!text.includes('ANSI ') && !text.includes('AAMVA')) return null;
  const l = parseAamva(text);
  const first = [l.firstName, l.middleName].filter((n) => n && n !== 'NONE').join(' ');
  return {
    number: l.driversLicenseId ?? undefined,
    last_name: l.lastName ?? undefined,
    first_name: first || undefined,
    date_of_birth: isoDay(l.dateOfBirth),
    expiry_date: isoDay(l.expirationDate),
    sex: l.gender === 'Male' ? 'M' : l.gender === 'Female' ? 'F' : undefined,
    issuing_country: l.countryCode ?? undefined,
    state: l.state ?? undefined,
  };
}
