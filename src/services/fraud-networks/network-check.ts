import type { EntityManager } from '@mikro-orm/postgresql';
import { findingDisposition } from '../../engine/document.js';
import type { CheckResult, Finding, Identity } from '../../engine/types.js';
import type { FlowSnapshot, Verification } from '../../entities/verification.entity.js';
import type { Vault } from '../shared/index.js';
import {
  documentSignal,
  joinFraudNetwork,
  presenterOf,
  searchFaceNetwork,
  settleNetwork,
  type FaceSearch,
} from './fraud-network.service.js';

const WAIVED = new Set(['ignore', 'waive', 'approve', 'accept']);

/**
 * A check's result with a fraud-network finding added: FRAUD_NETWORK sends the check to review
 * unless the policy tree's `findings.FRAUD_NETWORK` says `reject` or waives it (`ignore`);
 * the finding is kept either way. Pure.
 */
export function withNetworkFinding(
  outcome: CheckResult,
  finding: Finding,
  snapshot: FlowSnapshot,
  country?: string,
  documentType?: string,
): CheckResult {
  const findings = [...(outcome.findings ?? []), finding];
  const policy = findingDisposition(snapshot, 'FRAUD_NETWORK', country, documentType) ?? 'review';
  if (WAIVED.has(policy) || outcome.status !== 'completed') return { ...outcome, findings };
  const verdict = policy === 'reject' || outcome.verdict === 'reject' ? 'reject' : 'review';
  const reasonCodes = [...new Set([...outcome.reasonCodes, 'FRAUD_NETWORK'])];
  return { ...outcome, verdict, score: Math.min(outcome.score ?? 0.5, 0.3), reasonCodes, findings };
}

/**
 * The engine's hook after a live check ran, inside its transaction: the first check that
 * sees a read document number leaves the verification's document signal; when another person
 * presented the same document, the check carries the FRAUD_NETWORK finding. Sandbox never
 * joins a network (sandbox stays a simulation).
 */
export async function signalFraudNetworks(
  tx: EntityManager,
  vault: Vault,
  v: Verification,
  identity: Identity,
  outcome: CheckResult,
): Promise<CheckResult> {
  if (v.sandbox || v.mode !== 'live') return outcome;
  const signal = documentSignal(vault, identity);
  if (!signal) return outcome;
  const finding = await joinFraudNetwork(tx, v, presenterOf(vault, identity), signal);
  if (!finding) return outcome;
  return withNetworkFinding(
    outcome,
    finding,
    v.flowSnapshot,
    identity.document?.issuing_country,
    identity.document?.type,
  );
}

/** A face descriptor at unit length, or null when it has none. */
const unit = (embedding: number[]): number[] | null => {
  const norm = Math.sqrt(embedding.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? embedding.map((x) => x / norm) : null;
};

/**
 * For the face_match check, before its result is saved and outside any transaction: the
 * selfie's descriptor joins the face store and the faces close to it are found through the
 * index (live only; sandbox never joins a network). Null when there is nothing to settle.
 */
export async function searchFaces(
  em: EntityManager,
  vault: Vault,
  v: Verification,
  identity: Identity,
  embedding: number[],
): Promise<FaceSearch | null> {
  const face = unit(embedding);
  if (v.sandbox || v.mode !== 'live' || !face) return null;
  return searchFaceNetwork(em, v, presenterOf(vault, identity), face);
}

/**
 * Inside the check's transaction: when the search found the face presented by another person
 * (other name and date of birth), in this account or another, the networks are updated and
 * `outcome` carries the FRAUD_NETWORK finding, which never names the other account.
 */
export async function signalFaceNetwork(
  tx: EntityManager,
  vault: Vault,
  v: Verification,
  identity: Identity,
  embedding: number[],
  found: FaceSearch,
  outcome: CheckResult,
): Promise<CheckResult> {
  const face = unit(embedding);
  if (!face) return outcome;
  const finding = await settleNetwork(tx, v, presenterOf(vault, identity), { kind: 'face', embedding: face }, found);
  if (!finding) return outcome;
  return withNetworkFinding(
    outcome,
    finding,
    v.flowSnapshot,
    identity.document?.issuing_country,
    identity.document?.type,
  );
}
