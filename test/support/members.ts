import { systemFork } from '../../src/orm.js';
import { createMember, type BootstrapResult, type MemberPermission } from '../../src/services/access/index.js';
import type { TestServer } from './test-server.js';

/** The password every test member signs in with. */
export const MEMBER_PASSWORD = 'a-long-enough-password';
const PASSWORD = MEMBER_PASSWORD;
let seq = 0;

/** A member of `account` holding exactly `permissions` and `environments`, signed in through the real route. */
export async function signedInMember(
  server: TestServer,
  account: BootstrapResult,
  permissions: MemberPermission[],
  environments: ('sandbox' | 'live')[] = ['sandbox', 'live'],
): Promise<{ id: string; email: string; token: string }> {
  const email = `member-${Date.now()}-${seq++}@example.com`;
  const member = await createMember(systemFork(server.runtime.orm), {
    merchantId: account.merchant.id,
    email,
    name: `Member ${seq}`,
    password: PASSWORD,
    permissions,
    environments,
  });
  const signIn = await server.request('/v1/console/sessions', { body: { email, password: PASSWORD } });
  if (signIn.status !== 201) throw new Error(`sign-in answered ${signIn.status}: ${JSON.stringify(signIn.body)}`);
  return { id: member.id, email, token: signIn.body.token };
}
