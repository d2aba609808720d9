/** Public face of the repeat-control domain: adapters import from here. */
export * from './create-gate.js';
export * from './lookup.service.js';
export * from './repeat-control.service.js';
export * from './reverification.service.js';
export * from './person-matches.js';
