import './warnings.js';
import 'reflect-metadata';
import { pathToFileURL } from 'node:url';
import { loadConfig, MODES, type Config, type Mode } from './config.js';
import { ApiError } from './errors.js';
import { buildGraphqlSchema } from './graphql/apollo.js';
import { systemFork } from './orm.js';
import { startRuntime } from './runtime.js';
import { bootstrapAccount, createMember, MEMBER_PERMISSIONS } from './services/access/index.js';
import { createLogger } from './logger.js';

const USAGE = `usage: npm run cli -- <command>

  migrate                      apply pending database migrations
  bootstrap [--json] [--name N] create a new, independent account with an owner and two keys
  member create --merchant ID --email E --password P [--name N]
                [--permissions a,b] [--environments sandbox,live]
                               add a team member to an account
  schema                       write src/schema/schema.graphql
`;

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

function flag(args: string[], name: string): string | undefined {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : undefined;
}

/** Runs one CLI command against the server's database (DATABASE_URL or the embedded one); returns the exit code. */
export async function runCli(
  args: string[],
  config: Config = loadConfig(),
  io: CliIo = { out: console.log, err: console.error },
): Promise<number> {
  const [command, sub] = args;
  if (!command || command === 'help' || command === '--help') {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'schema') {
    await buildGraphqlSchema(true);
    io.out('wrote src/schema/schema.graphql');
    return 0;
  }
  if (!['migrate', 'bootstrap', 'member'].includes(command)) {
    io.err(`unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const runtime = await startRuntime(config, {
    logger: createLogger(config.logLevel, 2),
    workJobs: false,
    storage: false,
  });
  try {
    const em = systemFork(runtime.orm);
    if (command === 'migrate') {
      // startRuntime applied any pending migration (and logged which to stderr).
      io.out(
        `migrations are up to date (${runtime.appliedMigrations.length ? `applied ${runtime.appliedMigrations.join(', ')}` : 'nothing to apply'})`,
      );
      return 0;
    }
    if (command === 'bootstrap') {
      const result = await bootstrapAccount(em, {
        name: flag(args, 'name'),
        sessionTtlSeconds: config.memberSessionTtlSeconds,
      });
      if (args.includes('--json')) io.out(JSON.stringify(result, null, 2));
      else {
        io.out(`account ${result.merchant.id}`);
        io.out(`owner   ${result.member.email} / ${result.member.password}`);
        io.out(`sandbox ${result.keys.sandbox.secret_key}`);
        io.out(`live    ${result.keys.live.secret_key}`);
      }
      return 0;
    }
    if (sub !== 'create') {
      io.err(USAGE);
      return 2;
    }
    const merchantId = flag(args, 'merchant');
    const email = flag(args, 'email');
    const password = flag(args, 'password');
    if (!merchantId || !email || !password) {
      io.err('member create needs --merchant, --email and --password');
      return 2;
    }
    const member = await createMember(em, {
      merchantId,
      email,
      password,
      name: flag(args, 'name') ?? email,
      permissions: (flag(args, 'permissions') ?? MEMBER_PERMISSIONS.join(',')).split(',').filter(Boolean),
      environments: (flag(args, 'environments') ?? MODES.join(',')).split(',').filter(Boolean) as Mode[],
    });
    io.out(
      JSON.stringify({
        id: member.id,
        email: member.email,
        permissions: member.permissions,
        environments: member.environments,
      }),
    );
    return 0;
  } catch (error) {
    io.err(error instanceof ApiError ? `${error.code}: ${error.message}` : String((error as Error).stack ?? error));
    return 1;
  } finally {
    await runtime.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  runCli(process.argv.slice(2)).then((code) => process.exit(code));
}
