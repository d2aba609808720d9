/** Public face of the access domain: adapters import from here. */
export * from './account.service.js';
export * from './api-key.service.js';
export * from './auth.service.js';
export * from './member.service.js';
export * from './merchant.service.js';
export * from './permissions.js';
export * from './settings.service.js';
export * from './settings.schema.js';
export * from './sign-in-throttle.js';
export * from './team.service.js';
