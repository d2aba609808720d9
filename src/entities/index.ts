import { ApiKey } from './api-key.entity.js';
import { Member } from './member.entity.js';
import { MemberSession } from './member-session.entity.js';
import { Merchant } from './merchant.entity.js';

export { ApiKey, Member, MemberSession, Merchant };

/** Every entity, for the ORM. */
export const ENTITIES = [Merchant, ApiKey, Member, MemberSession];

/** Entities scoped by account and environment (the `tenant` filter). */
export const TENANT_ENTITIES = ['ApiKey'];

/** Entities scoped by account only (the `merchant` filter). */
export const MERCHANT_ENTITIES = ['Member', 'MemberSession'];
