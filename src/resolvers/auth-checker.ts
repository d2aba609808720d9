import type { AuthChecker } from 'type-graphql';
import type { ServiceContext } from '../services/shared/index.js';
import { authorize, type MemberPermission } from '../services/access/index.js';

/**
 * type-graphql's authChecker over the same `authorize()` the REST guard uses.
 * `@Authorized()` needs a member; `@Authorized('logs.read')` also that permission.
 */
export const authChecker: AuthChecker<ServiceContext> = async ({ context }, roles) => {
  for (const permission of roles) await authorize(context, { permission: permission as MemberPermission });
  return true;
};
