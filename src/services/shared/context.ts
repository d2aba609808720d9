import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config, Mode } from '../../config.js';
import type { KeyAccess } from '../../entities/api-key.entity.js';
import type { Logger } from '../../logger.js';
import type { Runtime } from '../../runtime.js';
import { parameterMissing, permissionError } from '../../errors.js';
import { scopedFork } from '../../orm.js';

export interface KeyCaller {
  kind: 'key';
  keyId: string;
  name: string;
  mode: Mode;
  permissions: string[];
  access: KeyAccess;
}

export interface MemberCaller {
  kind: 'member';
  memberId: string;
  sessionId: string;
  permissions: string[];
  environments: Mode[];
}

export interface SystemCaller {
  kind: 'system';
}

export type Caller = KeyCaller | MemberCaller | SystemCaller;

/**
 * What every service function takes first: the request's EntityManager fork (tenancy
 * filters bound), the caller, its account and visible environments, and the request id.
 * Koa middleware and the Apollo context build the same object.
 */
/** What an adapter keeps per request on the context: opaque to the domain. */
export type RequestCache = object;

export interface ServiceContext {
  em: EntityManager;
  requestId: string;
  /** The request's logger: every line it writes carries `request_id`. */
  log: Logger;
  merchantId: string;
  caller: Caller;
  /** Environments this context may read: the key's one, or the member seat's. */
  modes: Mode[];
  runtime: Runtime;
  /** Where the call came in, for team activity rows: console (REST /v1/console), graphql, api (a secret key), cli. */
  surface?: 'console' | 'graphql' | 'api' | 'cli' | 'hosted';
  /** The client address, where a service needs it (the sign-in throttle). */
  remoteAddress?: string;
  /**
   * A per-request cache an adapter may keep on the context (GraphQL keeps its DataLoaders here,
   * created lazily by its loadersOf(ctx)); the domain never reads it.
   */
  loaders?: RequestCache;
}

/**
 * A ServiceContext whose EntityManager fork is made on first use of `em`: forking costs
 * ~60 µs, and a request answered from the key cache and prepared reads never needs one.
 * Still one fork per request at most; assigning `em` replaces it.
 */
export function withLazyFork(fields: Omit<ServiceContext, 'em'>, fork: () => EntityManager): ServiceContext {
  let em: EntityManager | undefined;
  return Object.defineProperty(fields, 'em', {
    get: () => (em ??= fork()),
    set: (value: EntityManager) => {
      em = value;
    },
    enumerable: true,
    configurable: true,
  }) as ServiceContext;
}

export const configOf = (ctx: ServiceContext): Config => ctx.runtime.config;

/**
 * The context narrowed to one environment the seat holds (its own tenancy-filtered fork), the
 * context itself when none is named, or null when the seat lacks that environment: a seat
 * asking for an environment it lacks gets an empty list, or 404 for one resource.
 */
export function narrowedTo(ctx: ServiceContext, environment: Mode | null | undefined): ServiceContext | null {
  if (!environment) return ctx;
  if (!ctx.modes.includes(environment)) return null;
  if (ctx.modes.length === 1) return ctx;
  const modes: Mode[] = [environment];
  // Built field by field: spreading ctx would read its lazy `em` and fork for nothing.
  const { requestId, log, merchantId, caller, runtime, surface } = ctx;
  return withLazyFork({ requestId, log, merchantId, caller, modes, runtime, surface }, () =>
    scopedFork(runtime.orm, { merchantId, modes }),
  );
}

/**
 * The one environment an operation acts in (every write, and reads that take one environment):
 * a key's own; a member names one its seat holds, or may omit it when the seat holds one.
 * A seat lacking the named environment: 403 ENVIRONMENT_NOT_HELD; several held and none
 * named: 400 parameter_missing `environment`.
 */
export function actingEnvironment(ctx: ServiceContext, environment?: Mode | null): Mode {
  if (ctx.caller.kind === 'key') return ctx.caller.mode;
  if (environment) {
    if (!ctx.modes.includes(environment))
      throw permissionError('ENVIRONMENT_NOT_HELD', `Your seat does not hold the ${environment} environment.`);
    return environment;
  }
  if (ctx.modes.length === 1) return ctx.modes[0]!;
  throw parameterMissing('environment');
}
