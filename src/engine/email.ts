import { createRequire } from 'node:module';
import { type CheckInput, type CheckResult, type CheckRunner, result, type Verdict } from './types.js';

// mailchecker (maintained, ~56,000 throwaway domains, updated with every release) is CommonJS.
const require = createRequire(import.meta.url);
const mailchecker = require('mailchecker') as { blacklist(): Set<string> };
const DISPOSABLE = mailchecker.blacklist();

/** The WHATWG "valid e-mail address" production, plus the RFC 5321 length limits. */
const ADDRESS =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export function isValidAddress(email: string): boolean {
  const at = email.lastIndexOf('@');
  if (email.length > 254 || at < 1 || at > 64) return false;
  const local = email.slice(0, at);
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) return false;
  return ADDRESS.test(email) && /[a-zA-Z]/.test(email.slice(email.lastIndexOf('.') + 1));
}

/** Whether the domain, or any parent of it (`x.mailinator.com`), is a known throwaway provider. */
export function isDisposableDomain(domain: string): boolean {
  const labels = domain.toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i += 1) if (DISPOSABLE.has(labels.slice(i).join('.'))) return true;
  return false;
}

/**
 * The email step's options: `config.on_disposable` (`review` default, `reject`, or `ignore`),
 * `config.require_confirmation` (true: an address the applicant has not confirmed with the
 * hosted page's one-time code goes to review with EMAIL_NOT_CONFIRMED).
 */
export function evaluateEmail(email: string, confirmed: boolean, config: Record<string, unknown>): CheckResult {
  const address = email.trim();
  if (!isValidAddress(address)) return result('reject', 0, ['EMAIL_INVALID']);
  const codes: string[] = [];
  let verdict: Verdict = 'approve';
  const onDisposable =
    config.on_disposable === 'reject' || config.on_disposable === 'ignore' ? config.on_disposable : 'review';
  const disposable = isDisposableDomain(address.slice(address.lastIndexOf('@') + 1));
  if (disposable && onDisposable !== 'ignore') {
    codes.push('EMAIL_DISPOSABLE');
    verdict = onDisposable === 'reject' ? 'reject' : 'review';
  }
  if (config.require_confirmation === true && !confirmed) {
    codes.push('EMAIL_NOT_CONFIRMED');
    if (verdict === 'approve') verdict = 'review';
  }
  const score = verdict === 'reject' ? 0.05 : verdict === 'review' ? 0.4 : confirmed ? 1 : 0.8;
  return { ...result(verdict, score, codes), findings: disposable ? [{ code: 'EMAIL_DISPOSABLE' }] : [] };
}

/**
 * The email runner. An address comes from `applicant.email` at create or the hosted flow's
 * email step; `email_confirmed` on the identity says the one-time code confirmed it. Sandbox
 * keeps its old behaviour (an address given counts as approved).
 */
export const emailRunner: CheckRunner = {
  type: 'email',
  run(input: CheckInput): CheckResult {
    const email = input.identity.email;
    if (!email)
      return {
        status: 'skipped',
        verdict: null,
        score: null,
        reasonCodes: ['EMAIL_NOT_PROVIDED'],
        providerTier: 'standard',
      };
    if (input.sandbox) return result('approve', 1);
    return evaluateEmail(
      email,
      input.identity.email_confirmed === true,
      (input.check.config ?? {}) as Record<string, unknown>,
    );
  },
};
