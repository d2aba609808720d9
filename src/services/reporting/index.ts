/** Public face of the reporting domain: adapters import from here. */
export * from './usage.service.js';
