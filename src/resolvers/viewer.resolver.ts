import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { notFound } from '../errors.js';
import { getMember, getMerchant } from '../services/access/index.js';
import type { ServiceContext } from '../services/shared/index.js';
import { ViewerType } from '../schema/account.types.js';
import type { Environment } from '../schema/enums.js';
import { type Source } from './source.js';

@Resolver()
export class ViewerResolver {
  @Authorized()
  @Query(() => ViewerType, { description: 'The signed-in member, its account and environments.' })
  async viewer(@Ctx() ctx: ServiceContext): Promise<Source<ViewerType>> {
    const [member, merchant] = await Promise.all([getMember(ctx), getMerchant(ctx)]);
    if (!member) throw notFound('member');
    return { member: member, merchant, environments: ctx.modes as Environment[] };
  }
}
