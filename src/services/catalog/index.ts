/** Public face of the catalog domain: adapters import from here. */
export * from './create-flow.js';
export * from './flow-resolution.js';
export * from './flow.service.js';
export * from './tag.service.js';
export * from './flow.schema.js';
