/** Public face of the shared domain: adapters import from here. */
export * from './context.js';
export * from './idempotency.service.js';
export * from './pagination.js';
export * from './sql.js';
export * from './vault.js';
export * from './validate.js';
