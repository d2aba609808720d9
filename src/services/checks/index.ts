/**
 * Public face of the checks domain: running a verification's checks through the engine (read,
 * analyse with no transaction open, settle in a short one), recording what the document check
 * read, persisting each check's findings, and the roll-up. The engine (src/engine) stays pure.
 */
export * from './document-record.js';
export * from './images.js';
export * from './rollup.js';
export * from './run-checks.js';
