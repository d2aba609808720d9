import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { parameterMissing } from '../errors.js';
import { parseInput, type ServiceContext } from '../services/shared/index.js';
import { getSettings, settingsPatchInput, updateSettings } from '../services/access/index.js';
import { AccountSettingsType, UpdateSettingsInput } from '../schema/settings.types.js';
import { type Source } from './source.js';

/** The input's sent fields (undefined dropped, an explicit null kept), nested objects included. */
function sentFields(value: unknown): unknown {
  if (!value || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, sentFields(v)]),
  );
}

/** Account settings for team members, through the same service and rules as /v1/console/settings. */
@Resolver(() => AccountSettingsType)
export class SettingsResolver {
  @Authorized()
  @Query(() => AccountSettingsType, { description: 'The account settings (created with the defaults on first read).' })
  async settings(@Ctx() ctx: ServiceContext): Promise<Source<AccountSettingsType>> {
    return await getSettings(ctx);
  }

  @Authorized('settings.manage')
  @Mutation(() => AccountSettingsType, {
    description:
      'Changes what is sent; with a stale version nothing is applied (STALE_VERSION, detail.current_version).',
  })
  async updateSettings(
    @Ctx() ctx: ServiceContext,
    @Arg('input', () => UpdateSettingsInput) input: UpdateSettingsInput,
  ): Promise<Source<AccountSettingsType>> {
    const patch = parseInput(settingsPatchInput, sentFields({ ...input }));
    const { version: _version, ...changes } = patch;
    if (Object.keys(changes).length === 0) throw parameterMissing('repeatVerification');
    return await updateSettings(ctx, patch);
  }
}
