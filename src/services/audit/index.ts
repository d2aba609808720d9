/** Public face of the audit domain: adapters import from here. */
export * from './audit.service.js';
export * from './activity.service.js';
export * from './timeline.js';
