/** Pure document analysis: image Buffers in, plain JSON out (safe to run in a worker thread). */
export * from './analyse.js';
export { checkDigit, findMrz, readMrzLines, type MrzResult } from './mrz.js';
export { measureQuality, QUALITY_LIMITS, type QualityReport } from './quality.js';
export { decodeBounded, IMAGE_LIMITS } from './decode.js';
export { readPdf417, aamvaFields } from './barcode.js';
export { stopOcr } from './ocr.js';
