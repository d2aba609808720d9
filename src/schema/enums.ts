import { registerEnumType } from 'type-graphql';

/** The environment of a key or a seat. */
export enum Environment {
  sandbox = 'sandbox',
  live = 'live',
}
registerEnumType(Environment, { name: 'Environment', description: 'sandbox (test keys) or live' });

export enum KeyAccessEnum {
  read_write = 'read_write',
  read_only = 'read_only',
}
registerEnumType(KeyAccessEnum, { name: 'KeyAccess', description: 'read_only keys are refused on every write' });
