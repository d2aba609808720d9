import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../errors.js';

/** Failed sign-ins one email may have in the window before it is refused for the rest of it. */
export const SIGN_IN_FAILURES_PER_EMAIL = 10;
/** Failed sign-ins one client address may have in the window (several people may share one). */
export const SIGN_IN_FAILURES_PER_IP = 50;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * Throttles password guessing on POST /v1/console/sessions, per email (whether or not a member
 * has it, so the answer says nothing about which emails exist) and per client address.
 *
 * Every attempt spends one point of both budgets before the password is checked, in one
 * atomic step of rate-limiter-flexible's `consume` (a check followed by a later count let 300
 * concurrent guesses all pass the check before any failure was counted); over either budget
 * the attempt is refused with 429 and Retry-After. A successful sign-in gives its points back,
 * so only failures (and refused attempts) count. Counters live in the process (the memory
 * store): with several web processes each keeps its own, so the budget is per process.
 */
export class SignInThrottle {
  private readonly byEmail = new RateLimiterMemory({
    keyPrefix: 'signin-email',
    points: SIGN_IN_FAILURES_PER_EMAIL,
    duration: SIGN_IN_WINDOW_SECONDS,
  });
  private readonly byIp = new RateLimiterMemory({
    keyPrefix: 'signin-ip',
    points: SIGN_IN_FAILURES_PER_IP,
    duration: SIGN_IN_WINDOW_SECONDS,
  });

  /**
   * Spends one attempt of the address's budget, then of the email's; throws 429 RATE_LIMITED
   * when either is spent (an address over its budget spends none of the email's).
   */
  async attempt(email: string, ip: string): Promise<void> {
    try {
      await this.byIp.consume(ip);
      await this.byEmail.consume(email);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      const retryAfter = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new ApiError(
        429,
        'rate_limit_error',
        'RATE_LIMITED',
        'Too many failed sign-ins; wait for Retry-After seconds before trying again.',
        {
          headers: { 'Retry-After': String(retryAfter) },
        },
      );
    }
  }

  /** Gives back the points a successful sign-in spent: only failures count against the budgets. */
  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.byEmail.reward(email, 1), this.byIp.reward(ip, 1)]);
  }
}
