/** Public face of the fraud-networks domain: signals left by live verifications and each account's view of the networks they form. */
export * from './fraud-network.service.js';
export * from './network-check.js';
