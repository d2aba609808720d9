import http from 'node:http';
import { systemFork } from '../../src/orm.js';
import {
  createMember,
  SIGN_IN_FAILURES_PER_EMAIL,
  SIGN_IN_FAILURES_PER_IP,
  type BootstrapResult,
} from '../../src/services/access/index.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';

let server: TestServer;
let account: BootstrapResult;
withTestAccount((t) => ({ server, account } = t));

const PASSWORD = 'a-long-enough-password';
let seq = 0;

async function member(): Promise<string> {
  const email = `signin-race-${Date.now()}-${seq++}@example.com`;
  await createMember(systemFork(server.runtime.orm), {
    merchantId: account.merchant.id,
    email,
    name: 'M',
    password: PASSWORD,
    permissions: [],
    environments: ['sandbox'],
  });
  return email;
}

/** POST /v1/console/sessions from `from` (any 127.0.0.0/8 address is this machine): each scenario has its own client address. */
function signIn(email: string, password: string, from: string): Promise<number> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${server.url}/v1/console/sessions`,
      {
        method: 'POST',
        agent: false,
        localAddress: from,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('the sign-in throttle counts and checks in one step (issue 27, item 3)', () => {
  it(`300 concurrent wrong passwords for one email: at most ${SIGN_IN_FAILURES_PER_EMAIL} are checked (401), every other one is 429`, async () => {
    const email = await member();
    const statuses = await Promise.all(
      Array.from({ length: 300 }, () => signIn(email, 'wrong-password-123', '127.0.0.2')),
    );
    const counts = tally(statuses);
    expect(Object.keys(counts).sort()).toEqual(['401', '429']);
    expect(counts[401]).toBeLessThanOrEqual(SIGN_IN_FAILURES_PER_EMAIL);
    // The budget is spent for this email from any address, the right password included.
    expect(await signIn(email, PASSWORD, '127.0.0.5')).toBe(429);
  });

  it('150 concurrent guesses with the right password last: the right one is refused too', async () => {
    const email = await member();
    const guesses = Array.from({ length: 149 }, (_, i) => signIn(email, `wrong-password-${i}`, '127.0.0.3'));
    const right = signIn(email, PASSWORD, '127.0.0.3');
    const statuses = await Promise.all([...guesses, right]);
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(SIGN_IN_FAILURES_PER_EMAIL);
    expect(await right).toBe(429);
  });

  it(`one address guessing ${SIGN_IN_FAILURES_PER_IP + 30} different emails at once: at most ${SIGN_IN_FAILURES_PER_IP} are checked`, async () => {
    const statuses = await Promise.all(
      Array.from({ length: SIGN_IN_FAILURES_PER_IP + 30 }, (_, i) =>
        signIn(`nobody-${i}-${Date.now()}@example.com`, 'wrong-password-123', '127.0.0.4'),
      ),
    );
    const counts = tally(statuses);
    expect(counts[401]).toBeLessThanOrEqual(SIGN_IN_FAILURES_PER_IP);
    expect(counts[429]).toBeGreaterThanOrEqual(30);
  });

  it('successful sign-ins do not spend the budget: a member signs in more often than the failure budget', async () => {
    const email = await member();
    for (let i = 0; i < SIGN_IN_FAILURES_PER_EMAIL + 2; i++)
      expect(await signIn(email, PASSWORD, '127.0.0.6')).toBe(201);
  });
});
