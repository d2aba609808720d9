import type { AuthChecker } from 'type-graphql';
import type { ServiceContext } from '../services/shared/index.js';
import { authenticationError } from '../errors.js';
import { authorize, type MemberPermission } from '../services/access/index.js';

/**
 * type-graphql's authChecker over the same `authorize()` the REST guard uses.
 * `@Authorized()` needs a member; `@Authorized('logs.read')` also that permission.
 */
export const authChecker: AuthChecker<ServiceContext> = async ({ context }, roles) => {
  // Only the anonymous SignIn request reaches Apollo without a member; it may call signIn alone.
  if (context.caller.kind !== 'member')
    throw authenticationError(
      'SESSION_MISSING',
      'No session token provided. Sign in and send "Authorization: Bearer <token>".',
    );
  for (const permission of roles) await authorize(context, { permission: permission as MemberPermission });
  return true;
};
