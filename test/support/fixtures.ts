/**
 * Tiny byte buffers that sniff as real files: file-type reads only the leading magic bytes,
 * so a valid header followed by filler is enough for the upload checks.
 */
const filler = (bytes: number) => Buffer.alloc(bytes, 0);

/** An ISO-BMFF `ftyp` box (MP4, QuickTime, HEIC) with its major and compatible brands. */
function ftyp(major: string, compatible: string[]): Buffer {
  const box = Buffer.alloc(16 + 4 * compatible.length);
  box.writeUInt32BE(box.length, 0);
  box.write('ftyp', 4, 'latin1');
  box.write(major, 8, 'latin1');
  compatible.forEach((brand, i) => box.write(brand, 16 + 4 * i, 'latin1'));
  return box;
}

/** JPEG: SOI + JFIF APP0 marker. */
export const jpegBytes = (size = 256): Buffer => {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  return Buffer.concat([head, filler(Math.max(0, size - head.length))]);
};

/** PNG: signature + an IHDR chunk header. */
export const pngBytes = (): Buffer =>
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    Buffer.from('IHDR', 'latin1'),
    filler(200),
  ]);

/** PDF: the `%PDF-` header and a trailer. */
export const pdfBytes = (): Buffer => Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n', 'latin1');

/** MP4: an `ftyp` box with the isom brand. */
export const mp4Bytes = (): Buffer => Buffer.concat([ftyp('isom', ['isom', 'iso2', 'mp41']), filler(200)]);

/** QuickTime: an `ftyp` box with the `qt  ` brand. */
export const movBytes = (): Buffer => Buffer.concat([ftyp('qt  ', ['qt  ']), filler(200)]);

/** HEIC: an `ftyp` box with the heic brand. */
export const heicBytes = (): Buffer => Buffer.concat([ftyp('heic', ['mif1', 'heic']), filler(200)]);
