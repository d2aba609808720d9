import type { BootstrapResult } from '../../src/services/access/index.js';
import { startTestServer, type TestServer } from './test-server.js';

/** What most test files share: their own server and one bootstrapped account with its two keys. */
export interface TestAccount {
  server: TestServer;
  account: BootstrapResult;
  /** `sk_test_` key holding every scope. */
  sandbox: string;
  /** `sk_live_` key holding every scope. */
  live: string;
}

/**
 * Starts the file's server (options as startTestServer) and bootstraps one account before its
 * tests, hands them to `use` (which may set up more, e.g. a second account), and closes the
 * server after them: `withTestAccount((t) => ({ server, account, sandbox } = t));`
 */
export function withTestAccount(use: (t: TestAccount) => unknown, options?: Parameters<typeof startTestServer>[0]): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    const account = await server.bootstrap();
    await use({ server, account, sandbox: account.keys.sandbox.secret_key, live: account.keys.live.secret_key });
  });
  afterAll(() => server?.close());
}

/** The server-only sibling of withTestAccount: the file's server, started before its tests and closed after them. */
export function withTestServer(use: (server: TestServer) => unknown, options?: Parameters<typeof startTestServer>[0]): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(options);
    await use(server);
  });
  afterAll(() => server?.close());
}
