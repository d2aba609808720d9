import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../../errors.js';

/** Failed sign-ins one email may have in the window before it is refused for the rest of it. */
export const SIGN_IN_FAILURES_PER_EMAIL = 10;
/** Failed sign-ins one client address may have in the window (several people may share one). */
export const SIGN_IN_FAILURES_PER_IP = 50;
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;

/**
 * Throttles password guessing on POST /v1/console/sessions: failures are counted per email
 * (whether or not a member has it, so the answer says nothing about which emails exist) and
 * per client address; over either budget the sign-in is refused with 429 and Retry-After
 * before the password is even checked. Counters live in the process (rate-limiter-flexible's
 * memory store): with several web processes each keeps its own, so the budget is per process.
 */
export class SignInThrottle {
  private readonly byEmail = new RateLimiterMemory({ keyPrefix: 'signin-email', points: SIGN_IN_FAILURES_PER_EMAIL, duration: SIGN_IN_WINDOW_SECONDS });
  private readonly byIp = new RateLimiterMemory({ keyPrefix: 'signin-ip', points: SIGN_IN_FAILURES_PER_IP, duration: SIGN_IN_WINDOW_SECONDS });

  /** Throws 429 RATE_LIMITED when the email or the address has spent its failures. */
  async check(email: string, ip: string): Promise<void> {
    const [forEmail, forIp] = await Promise.all([this.byEmail.get(email), this.byIp.get(ip)]);
    const blocked = [
      forEmail && forEmail.consumedPoints >= SIGN_IN_FAILURES_PER_EMAIL ? forEmail : null,
      forIp && forIp.consumedPoints >= SIGN_IN_FAILURES_PER_IP ? forIp : null,
    ].filter((r): r is RateLimiterRes => r !== null);
    if (blocked.length === 0) return;
    const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((r) => r.msBeforeNext)) / 1000));
    throw new ApiError(429, 'rate_limit_error', 'RATE_LIMITED', 'Too many failed sign-ins; wait for Retry-After seconds before trying again.', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }

  /** Counts one failed sign-in against the email and the address. */
  async failed(email: string, ip: string): Promise<void> {
    await Promise.all([this.byEmail.penalty(email, 1), this.byIp.penalty(ip, 1)]);
  }
}
