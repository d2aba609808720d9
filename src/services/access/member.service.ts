import type { EntityManager } from '@mikro-orm/postgresql';
import { MODES, type Mode } from '../../config.js';
import { DUMMY_PASSWORD_HASH, hashPassword, sha256Hex, verifyPassword } from '../../crypto.js';
import { Member } from '../../entities/member.entity.js';
import { MemberSession } from '../../entities/member-session.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import { authenticationError, conflict, parameterInvalid } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import type { ServiceContext } from '../shared/index.js';
import { isMemberPermission } from './permissions.js';

export interface CreateMemberInput {
  merchantId: string;
  email: string;
  name: string;
  password: string;
  permissions: string[];
  environments: Mode[];
}

export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** Adds a team member to an account (CLI, bootstrap and the console's invite, team.service.ts). */
export async function createMember(em: EntityManager, input: CreateMemberInput): Promise<Member> {
  const email = normaliseEmail(input.email);
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 254)
    throw parameterInvalid('email', 'email must be an email address.');
  if (input.password.length < 12) throw parameterInvalid('password', 'password must be at least 12 characters.');
  const unknown = input.permissions.find((p) => !isMemberPermission(p));
  if (unknown) throw parameterInvalid('permissions', `Unknown member permission "${unknown}".`);
  const badEnv = input.environments.find((e) => !MODES.includes(e));
  if (badEnv) throw parameterInvalid('environments', `Unknown environment "${badEnv}".`);
  // Only the inviting account's own members are compared: whether the address holds a seat in
  // another account is never told (it gets a seat of its own here, with its own password).
  if (await em.count(Member, { email, merchant: input.merchantId }, { filters: false }))
    throw conflict('MEMBER_EXISTS', 'A member of this account already has this email.', { param: 'email' });
  const member = em.create(Member, {
    merchant: em.getReference(Merchant, input.merchantId),
    email,
    name: input.name,
    passwordHash: await hashPassword(input.password),
    permissions: [...new Set(input.permissions)],
    environments: [...new Set(input.environments)],
  });
  await em.flush();
  return member;
}

export interface IssuedSession {
  token: string;
  expiresAt: Date;
  session: MemberSession;
}

/** Opens a console session for a member; the token is returned once and stored hashed. */
export async function openSession(em: EntityManager, member: Member, ttlSeconds: number): Promise<IssuedSession> {
  const token = `mst_${randomBase62(40)}`;
  const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
  const session = em.create(MemberSession, {
    merchant: member.merchant,
    member,
    tokenHash: sha256Hex(token),
    expiresAt,
  });
  await em.flush();
  return { token, expiresAt, session };
}

/**
 * Email and password sign-in; the same answer and timing whether the email or the password is
 * wrong. With a throttle, each attempt spends a point per email and per client address before
 * the password is checked (one atomic step, so concurrent guesses cannot all pass a check), a
 * spent budget is refused (429) for known and unknown emails alike, and a success gives its
 * points back.
 */
export async function signIn(
  em: EntityManager,
  email: string,
  password: string,
  ttlSeconds: number,
  throttle?: { limiter: SignInThrottle; ip: string },
): Promise<IssuedSession> {
  const normalised = normaliseEmail(email);
  await throttle?.limiter.attempt(normalised, throttle.ip);
  // An address may hold a seat in several accounts, each with its own password: the seat whose
  // password matches is opened (one account at a time). Capped, oldest first.
  const seats = await em.find(
    Member,
    { email: normalised },
    { filters: false, orderBy: { createdAt: 'asc' }, limit: 10 },
  );
  let member: Member | undefined;
  for (const seat of seats.length > 0 ? seats : [undefined]) {
    if (await verifyPassword(password, seat?.passwordHash ?? DUMMY_PASSWORD_HASH)) {
      member = seat;
      break;
    }
  }
  // A deactivated member gets the same answer as a wrong password: nothing to learn from it.
  if (!member || member.deactivatedAt)
    throw authenticationError('INVALID_CREDENTIALS', 'Email or password is incorrect.');
  await throttle?.limiter.succeeded(normalised, throttle.ip);
  return openSession(em, member, ttlSeconds);
}

/** Ends the calling session. */
export async function signOut(ctx: ServiceContext): Promise<void> {
  if (ctx.caller.kind !== 'member') return;
  const session = await ctx.em.findOne(MemberSession, { id: ctx.caller.sessionId });
  if (session && !session.revokedAt) {
    session.revokedAt = new Date();
    await ctx.em.flush();
  }
}

export async function getMember(ctx: ServiceContext): Promise<Member | null> {
  if (ctx.caller.kind !== 'member') return null;
  return ctx.em.findOne(Member, { id: ctx.caller.memberId });
}
