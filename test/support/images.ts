import zlib from 'node:zlib';

/** Real, decodable PNG images for the hosted page's tests (a browser must be able to draw them). */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/**
 * An RGB PNG of `width` x `height`: a sharp pseudo-random pattern of `brightness` (0-255 mean),
 * so it is neither blurry nor dark unless asked to be.
 */
export function pngImage(width: number, height: number, brightness = 150, seed = 1): Buffer {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3);
    for (let x = 0; x < width; x++) {
      // 8-pixel blocks of contrasting values: strong edges, the given mean.
      const block = ((x >> 3) + (y >> 3)) % 2 === 0 ? 1 : -1;
      const v = Math.max(
        0,
        Math.min(
          255,
          Math.round(brightness + block * Math.min(brightness, 255 - brightness) * 0.8 + (random() - 0.5) * 20),
        ),
      );
      row[1 + x * 3] = v;
      row[2 + x * 3] = Math.max(0, v - 10);
      row[3 + x * 3] = Math.min(255, v + 10);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
