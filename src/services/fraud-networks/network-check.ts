import type { EntityManager } from '@mikro-orm/postgresql';
import { findingDisposition } from '../../engine/document.js';
import type { CheckResult, Finding, Identity } from '../../engine/types.js';
import type { FlowSnapshot, Verification } from '../../entities/verification.entity.js';
import type { Vault } from '../shared/index.js';
import { documentSignal, joinFraudNetwork, presenterOf } from './fraud-network.service.js';

const WAIVED = new Set(['ignore', 'waive', 'approve', 'accept']);

/**
 * A check's result with a fraud-network finding added: FRAUD_NETWORK sends the check to review
 * unless the policy tree's `findings.FRAUD_NETWORK` says `reject` or waives it (`ignore`);
 * the finding is kept either way. Pure.
 */
export function withNetworkFinding(outcome: CheckResult, finding: Finding, snapshot: FlowSnapshot, country?: string, documentType?: string): CheckResult {
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
export async function signalFraudNetworks(tx: EntityManager, vault: Vault, v: Verification, identity: Identity, outcome: CheckResult): Promise<CheckResult> {
  if (v.sandbox || v.mode !== 'live') return outcome;
  const signal = documentSignal(vault, identity);
  if (!signal) return outcome;
  const finding = await joinFraudNetwork(tx, v, presenterOf(vault, identity), signal);
  if (!finding) return outcome;
  return withNetworkFinding(outcome, finding, v.flowSnapshot, identity.document?.issuing_country, identity.document?.type);
}

/**
 * For the face_match check (engine-face), one call after a live comparison: the selfie's
 * embedding (any length; normalised here) joins the face networks, and a face that another
 * person (other name and date of birth) presented adds the FRAUD_NETWORK finding to `outcome`.
 * Compared by cosine similarity in SQL over `fraud_signals.embedding` (real[]), within the mode,
 * across accounts, at FACE_NETWORK_SIMILARITY.
 */
export async function signalFaceNetwork(tx: EntityManager, vault: Vault, v: Verification, identity: Identity, embedding: number[], outcome: CheckResult): Promise<CheckResult> {
  const norm = Math.sqrt(embedding.reduce((sum, x) => sum + x * x, 0));
  if (v.sandbox || v.mode !== 'live' || !(norm > 0)) return outcome;
  const finding = await joinFraudNetwork(tx, v, presenterOf(vault, identity), { kind: 'face', embedding: embedding.map((x) => x / norm) });
  if (!finding) return outcome;
  return withNetworkFinding(outcome, finding, v.flowSnapshot, identity.document?.issuing_country, identity.document?.type);
}
