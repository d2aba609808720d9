import { findingDisposition } from '../document.js';
import { applicantFields } from '../identity.js';
import {
  type CheckInput,
  type CheckResult,
  type CheckRunner,
  type Finding,
  type FlowSnapshot,
  type Identity,
  result,
  type Verdict,
} from '../types.js';
import { amlIndex } from './lists.js';
import { type AmlIndex, screen } from './screen.js';
import type { AmlHit, AmlKind, AmlSubject } from './types.js';

/** The finding (and reason) code of a hit, by what the list entry is about. */
export const AML_CODES: Record<AmlKind, string> = {
  sanction: 'SANCTIONS_MATCH',
  pep: 'PEP_MATCH',
  watchlist: 'WATCHLIST_MATCH',
};

/** Findings kept on a check at most (the best ones); a common name can hit many entries. */
const MAX_FINDINGS = 10;

/**
 * The aml step's options (flow step or inline check):
 * - `threshold` (0 to 1): the score from which an entry is a hit; null: from `sensitivity`
 *   (the step's, else the flow's, else 0.5) as 0.95 - 0.2 x sensitivity, so 0.85 by default.
 * - `config.on_match` (`review` default, or `reject`): what a sanctions or watchlist hit does.
 * - `config.on_pep_match` (`review` default, `reject`, or `ignore`): what a PEP hit does.
 * - `config.lists` (array of list names): screen only these lists (default: every loaded list).
 * The policy tree's `findings` (SANCTIONS_MATCH, PEP_MATCH, WATCHLIST_MATCH) override both.
 */
export interface AmlOptions {
  threshold: number;
  onMatch: Verdict | 'ignore';
  onPepMatch: Verdict | 'ignore';
  lists: string[] | null;
}

const disposition = (value: unknown, fallback: Verdict | 'ignore'): Verdict | 'ignore' =>
  value === 'reject' || value === 'review' || value === 'ignore' ? value : fallback;

export function amlOptions(check: CheckInput['check'], snapshot: FlowSnapshot): AmlOptions {
  const config = (check.config ?? {}) as Record<string, unknown>;
  const sensitivity = check.sensitivity ?? snapshot.sensitivity ?? 0.5;
  const threshold = check.threshold ?? Math.round((0.95 - 0.2 * sensitivity) * 1000) / 1000;
  const lists = Array.isArray(config.lists) ? config.lists.filter((l): l is string => typeof l === 'string') : null;
  return {
    threshold,
    onMatch: disposition(config.on_match, 'review'),
    onPepMatch: disposition(config.on_pep_match, 'review'),
    lists,
  };
}

/** Who is screened: the name, date of birth and nationality read off the document (or edited by the team). */
export function amlSubject(identity: Identity): AmlSubject {
  const f = applicantFields(identity);
  return {
    firstName: f.first_name,
    lastName: f.last_name,
    fullName: f.full_name ?? f.name,
    dateOfBirth: f.date_of_birth,
    nationality: f.nationality ?? f.issuing_country,
  };
}

const WAIVED = new Set(['ignore', 'waive', 'approve', 'accept']);

/**
 * The verdict of a screening, pure: hits at or above the threshold become findings; each
 * finding's disposition comes from the policy tree, else the step's options; the strictest wins.
 */
export function decideAml(
  hits: AmlHit[],
  options: AmlOptions,
  snapshot: FlowSnapshot,
  country?: string,
  documentType?: string,
): CheckResult {
  const relevant = hits
    .filter((h) => h.score >= options.threshold && (!options.lists || options.lists.includes(h.list)))
    .slice(0, MAX_FINDINGS);
  const findings: Finding[] = relevant.map((h) => ({ code: AML_CODES[h.kind], ...h }));
  let verdict: Verdict = 'approve';
  const codes = new Set<string>();
  for (const hit of relevant) {
    const code = AML_CODES[hit.kind];
    const policy = findingDisposition(snapshot, code, country, documentType);
    const chosen = policy
      ? WAIVED.has(policy)
        ? 'ignore'
        : disposition(policy, 'review')
      : hit.kind === 'pep'
        ? options.onPepMatch
        : options.onMatch;
    if (chosen === 'ignore') continue;
    codes.add(code);
    if (chosen === 'reject') verdict = 'reject';
    else if (verdict !== 'reject') verdict = 'review';
  }
  const best = relevant[0]?.score ?? 0;
  return { ...result(verdict, Math.round((1 - best) * 1000) / 1000, [...codes]), findings };
}

/** Screens an identity against an index: pure (JSON in, JSON out) so a worker thread can run it. */
export function screenIdentity(
  index: AmlIndex,
  identity: Identity,
  options: AmlOptions,
  snapshot: FlowSnapshot,
): CheckResult {
  const subject = amlSubject(identity);
  if (!subject.lastName && !subject.firstName && !subject.fullName) return result('review', 0, ['AML_NAME_UNREADABLE']);
  // Scores a little under the threshold are kept out: they are not hits and would only be noise.
  const hits = screen(index, subject, options.threshold);
  const doc = identity.document;
  return decideAml(hits, options, snapshot, doc?.issuing_country, doc?.type);
}

/**
 * The aml runner. Sandbox screens clean as before; live screens the document's name, date of
 * birth and nationality against the lists of `AML_LISTS` (or the synthetic lists in data/aml).
 */
export const amlRunner: CheckRunner = {
  type: 'aml',
  async run(input: CheckInput): Promise<CheckResult> {
    if (input.sandbox) return result('approve', 1, [], 'sandbox');
    const index = await amlIndex();
    return screenIdentity(index, input.identity, amlOptions(input.check, input.snapshot), input.snapshot);
  },
};
