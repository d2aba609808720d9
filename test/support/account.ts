import type { BootstrapResult } from '../../src/services/access/index.js';
import { startTestServer, type TestServer } from './test-server.js';

/**
 * startTestServer's options, or a function giving them when the server starts (for options
 * that depend on something an earlier beforeAll started, e.g. a mail server's URL).
 */
export type ServerOptions = Parameters<typeof startTestServer>[0] | (() => Parameters<typeof startTestServer>[0]);

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
export function withTestAccount(use: (t: TestAccount) => unknown, options?: ServerOptions): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof options === 'function' ? options() : options);
    const account = await server.bootstrap();
    await use({ server, account, sandbox: account.keys.sandbox.secret_key, live: account.keys.live.secret_key });
  });
  afterAll(() => server?.close());
}

/** The server-only sibling of withTestAccount: the file's server, started before its tests and closed after them. */
export function withTestServer(use: (server: TestServer) => unknown, options?: ServerOptions): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof options === 'function' ? options() : options);
    await use(server);
  });
  afterAll(() => server?.close());
}
