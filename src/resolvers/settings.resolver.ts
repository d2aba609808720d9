import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountSettings } from '../entities/account-settings.entity.js';
import { ApiError, parameterMissing } from '../errors.js';
import { patchSettingsBody } from '../rest/settings.schema.js';
import { parseInput } from '../rest/validate.js';
import type { ServiceContext } from '../services/shared/index.js';
import { getSettings, updateSettings } from '../services/access/index.js';
import { AccountSettingsType, UpdateSettingsInput } from '../schema/settings.types.js';

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The REST body of the input (snake_case, undefined dropped, an explicit null kept) for the same validation. */
function toBody(value: unknown): unknown {
  if (!value || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => [snake(k), toBody(v)]));
}

const asType = (s: AccountSettings) => s as unknown as AccountSettingsType;

/** Account settings for team members, through the same service and rules as /v1/console/settings. */
@Resolver(() => AccountSettingsType)
export class SettingsResolver {
  @Authorized()
  @Query(() => AccountSettingsType, { description: 'The account settings (created with the defaults on first read).' })
  async settings(@Ctx() ctx: ServiceContext): Promise<AccountSettingsType> {
    return asType(await getSettings(ctx));
  }

  @Authorized()
  @Mutation(() => AccountSettingsType, { description: 'Changes what is sent; with a stale version nothing is applied (STALE_VERSION, detail.current_version).' })
  async updateSettings(@Ctx() ctx: ServiceContext, @Arg('input', () => UpdateSettingsInput) input: UpdateSettingsInput): Promise<AccountSettingsType> {
    let body;
    try {
      body = parseInput(patchSettingsBody, toBody({ ...input }));
    } catch (error) {
      if (!(error instanceof ApiError) || !error.param) throw error;
      const param = error.param.split('.').map(camel).join('.');
      throw new ApiError(error.status, error.type, error.code, error.message.split(error.param).join(param), { param, detail: error.detail });
    }
    const { version: _version, ...changes } = body;
    if (Object.keys(changes).length === 0) throw parameterMissing('repeatVerification');
    return asType(await updateSettings(ctx, body));
  }
}
