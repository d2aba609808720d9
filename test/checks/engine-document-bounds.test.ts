// Image bombs (issue 27 item 2): every decode and resize of the document check is bounded by
// pixel count and aspect ratio, checked on the header before any pixel is decoded or scaled.
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { documentResult } from '../../src/engine/document.js';
import { analyseDocument, IMAGE_LIMITS, stopOcr } from '../../src/engine/document/index.js';
import { decodeBounded } from '../../src/engine/document/decode.js';
import { stripBomb } from '../support/document-renders.js';

const snapshot = { steps: [], acceptedDocumentTypes: [], policyTree: {}, expiryPolicy: {} } as unknown as FlowSnapshot;
const now = new Date('2026-06-01T00:00:00Z');
afterAll(() => stopOcr());

/** A PNG whose header claims width x height with next to no pixel data behind it. */
function pngHeader(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('image bombs are refused before any decode or resize', () => {
  it('a 1 x 250 PNG document front is refused IMAGE_UNREADABLE in well under a second (aspect ratio)', async () => {
    const bomb = await stripBomb();
    expect(bomb.length).toBeLessThan(120);
    const started = Date.now();
    const analysis = await analyseDocument({ front: bomb }, { now });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(analysis.sides[0].refused).toBe('aspect_ratio');
    expect(documentResult(analysis, snapshot, now)).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['IMAGE_UNREADABLE'],
    });
  });

  it('a header claiming 30000 x 30000 pixels is refused from the header alone', async () => {
    const started = Date.now();
    expect(await decodeBounded(pngHeader(30_000, 30_000))).toEqual({
      refused: 'unreadable',
      reason: 'too_many_pixels',
    });
    expect(await decodeBounded(pngHeader(9_000, 9_000))).toEqual({ refused: 'unreadable', reason: 'too_many_pixels' });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a back image that is a bomb refuses the whole document, not only its side', async () => {
    const front = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const analysis = await analyseDocument({ front, back: await stripBomb() }, { now });
    expect(documentResult(analysis, snapshot, now).reasonCodes).toEqual(['IMAGE_UNREADABLE']);
  });

  it('a tiny but well-shaped image is a retryable IMAGE_QUALITY, never decoded to a fixed width', async () => {
    const tiny = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    expect(await decodeBounded(tiny)).toMatchObject({ refused: 'quality', reason: 'too_small' });
    expect(IMAGE_LIMITS.maxAspect).toBeLessThanOrEqual(8);
  });
});
