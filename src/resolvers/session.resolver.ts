import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import { systemFork } from '../orm.js';
import { ConsoleSessionType } from '../schema/session.types.js';
import { signIn, signOut } from '../services/access/index.js';
import { parseInput, type ServiceContext } from '../services/shared/index.js';
import { signInBody } from '../rest/schemas.js';
import { type Source } from './source.js';

/**
 * Sign-in and sign-out for GraphQL clients (the console app), through the same service and
 * throttle as POST /v1/console/sessions. `signIn` is the one field a request without a session
 * may reach (operation name `SignIn`, see graphql/apollo.ts); every other field needs a member.
 */
@Resolver()
export class SessionResolver {
  @Mutation(() => ConsoleSessionType, {
    description:
      'Email and password sign-in (operation name SignIn, no Authorization header); INVALID_CREDENTIALS otherwise.',
  })
  async signIn(
    @Ctx() ctx: ServiceContext,
    @Arg('email', () => String) email: string,
    @Arg('password', () => String) password: string,
  ): Promise<Source<ConsoleSessionType>> {
    const body = parseInput(signInBody, { email, password });
    const { runtime } = ctx;
    const issued = await signIn(
      systemFork(runtime.orm),
      body.email,
      body.password,
      runtime.config.memberSessionTtlSeconds,
      { limiter: runtime.signInThrottle, ip: ctx.remoteAddress ?? 'unknown' },
    );
    return { token: issued.token, expiresAt: issued.expiresAt };
  }

  @Authorized()
  @Mutation(() => Boolean, { description: 'Ends the calling session: its token is refused from now on.' })
  async signOut(@Ctx() ctx: ServiceContext): Promise<boolean> {
    await signOut(ctx);
    return true;
  }
}
