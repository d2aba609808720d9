/** Public face of the logs domain (request log, delivery log, exports): adapters import from here. */
export * from './request-log.mask.js';
export * from './request-log.writer.js';
export * from './request-log.service.js';
export * from './delivery-log.service.js';
export * from './exports.service.js';
export * from './csv.js';
