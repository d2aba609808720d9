import type { EntityManager } from '@mikro-orm/postgresql';
import { doubleMetaphoneKeys } from '../../engine/aml/text.js';
import type { Finding, Identity } from '../../engine/types.js';
import { Event } from '../../entities/event.entity.js';
import { Merchant } from '../../entities/merchant.entity.js';
import type { Verification } from '../../entities/verification.entity.js';
import { newId } from '../../ids.js';
import { normaliseDocumentNumber, rawSqlOf, type Vault } from '../shared/index.js';
import { fingerprintsOf } from '../verifications/identity.js';
import { FACE_DESCRIPTOR_LENGTH, faceBuckets } from './face-index.js';

/**
 * Fraud networks: the same document (or, once face embeddings exist, the same face) presented
 * by different people, within an account or across accounts. Every live verification whose
 * document was read leaves a signal (keyed fingerprints only); a signal shared with another
 * presenter puts a finding on the verification and emits fraud_network.created / .modified to
 * each account involved, naming only that account's own network id and verifications.
 */

/** What a verification presented: a document's keyed fingerprint, or a unit-length face embedding. */
export type NetworkSignal = { kind: 'document'; key: string } | { kind: 'face'; embedding: number[] };

/** Who presented it: keyed fingerprints of the name and date of birth, and of the national id. */
export interface Presenter {
  holder: string | null;
  nationalId: string | null;
}

/**
 * Cosine similarity of two face descriptors from which they count as the same face (tight: a
 * network is an accusation). 0.95 is above every impostor pair of the real photos (docs/checks-face.md).
 */
export const FACE_NETWORK_SIMILARITY = 0.95;
const MAX_IDS_IN_EVENT = 20;

/**
 * The presenter's fingerprints. The holder is keyed on the sorted phonetic codes of the name
 * and the date of birth, so an OCR slip or a reordered name is still the same person.
 */
export function presenterOf(vault: Vault, identity: Identity): Presenter {
  const doc = identity.document ?? {};
  const name = [doc.first_name, doc.last_name].filter(Boolean).join(' ');
  const codes = doubleMetaphoneKeys(name);
  const country = (doc.issuing_country ?? '').toUpperCase();
  return {
    holder:
      codes.length > 0 && doc.date_of_birth
        ? vault.fingerprint('holder', `${codes.join(' ')}|${doc.date_of_birth}`)
        : null,
    nationalId: doc.national_id
      ? vault.fingerprint('national_id', `${country}:${normaliseDocumentNumber(doc.national_id)}`)
      : null,
  };
}

export interface MemberRow {
  id: string;
  merchant_id: string;
  verification_id: string;
  holder_fingerprint: string | null;
  national_id_fingerprint: string | null;
  api_key_id: string | null;
}

/** Two presenters are different people when both are known, differ, and no national id ties them. */
const differentPeople = (a: Presenter, b: MemberRow): boolean =>
  !!a.holder &&
  !!b.holder_fingerprint &&
  a.holder !== b.holder_fingerprint &&
  !(a.nationalId && a.nationalId === b.national_id_fingerprint);

const SELECT_MEMBERS = `select s.id, s.merchant_id, s.verification_id, s.holder_fingerprint, s.national_id_fingerprint, v.api_key_id
    from fraud_signals s join verifications v on v.id = s.verification_id`;

/** The other signals sharing this one's key (document) or close enough in embedding (face), across every account of the mode. */
async function sharedSignals(
  sql: ReturnType<typeof rawSqlOf>,
  mode: string,
  signalId: string,
  signal: NetworkSignal,
): Promise<MemberRow[]> {
  // Deliberately across accounts: only ids leave this function, and each account's event names only its own.
  if (signal.kind === 'document') {
    return sql.query<MemberRow>(
      `${SELECT_MEMBERS} where s.mode = $1 and s.kind = 'document' and s.key_fingerprint = $2 and s.id <> $3 order by s.created_at`,
      [mode, signal.key, signalId],
    );
  }
  return sql.query<MemberRow>(FACE_SEARCH_SQL, faceSearchParams(mode, signal.embedding, signalId));
}

/** The same-face search: the GIN index on face_buckets gives the candidates (faces sharing an LSH bucket); each is compared exactly. */
/**
 * The dot product of a stored descriptor with the probe ($2) as one flat expression of
 * FACE_DESCRIPTOR_LENGTH products: several times cheaper per candidate than unnest() and sum(),
 * which builds a row set for every candidate. A stored descriptor of another length has a null
 * term (out-of-range subscript), so it never counts as the same face.
 */
const FACE_DOT = Array.from(
  { length: FACE_DESCRIPTOR_LENGTH },
  (_, i) => `s.embedding[${i + 1}] * q.probe[${i + 1}]`,
).join(' + ');

export const FACE_SEARCH_SQL = `with candidates as materialized (
    select s.id, s.merchant_id, s.verification_id, s.holder_fingerprint, s.national_id_fingerprint, s.created_at
      from fraud_signals s, (select $2::real[] as probe) q
     where s.kind = 'face' and s.face_buckets && $4::int[] and s.mode = $1 and s.id <> $3
       and (${FACE_DOT}) >= $5)
  select c.id, c.merchant_id, c.verification_id, c.holder_fingerprint, c.national_id_fingerprint, v.api_key_id
    from candidates c join verifications v on v.id = c.verification_id order by c.created_at`;

/** FACE_SEARCH_SQL's parameters for a unit-length descriptor (the bench runs the same statement). */
export const faceSearchParams = (mode: string, embedding: number[], excludeSignalId: string): unknown[] => [
  mode,
  embedding,
  excludeSignalId,
  faceBuckets(embedding),
  FACE_NETWORK_SIMILARITY,
];

interface NetworkRow {
  id: string;
  inserted: boolean;
  changed: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

/** One account's view of the network, created or brought up to date; `changed` when its counts moved. */
async function upsertNetwork(
  tx: EntityManager,
  merchantId: string,
  mode: string,
  kind: string,
  key: string,
  count: number,
  crossAccount: boolean,
): Promise<NetworkRow> {
  const [row] = await rawSqlOf(tx).query<NetworkRow>(
    `with before as (select verification_count, cross_account from fraud_networks where merchant_id = $2 and mode = $3 and kind = $4 and network_key = $5)
     insert into fraud_networks (id, merchant_id, mode, kind, network_key, verification_count, cross_account) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (merchant_id, mode, kind, network_key) do update set verification_count = excluded.verification_count, cross_account = excluded.cross_account, updated_at = now()
     returning id, (xmax = 0) as inserted, created_at, updated_at,
       coalesce((select verification_count <> $6 or cross_account <> $7 from before), true) as changed`,
    [newId('fn'), merchantId, mode, kind, key, count, crossAccount],
  );
  return row!;
}

/** Stores what `v` presented (once per kind); the signal's id, or null when `v` had already left this kind of signal. */
async function insertSignal(
  sql: ReturnType<typeof rawSqlOf>,
  v: Verification,
  presenter: Presenter,
  signal: NetworkSignal,
): Promise<string | null> {
  const signalId = newId('fsg');
  const inserted = await sql.query<{ id: string }>(
    `insert into fraud_signals (id, merchant_id, mode, verification_id, kind, key_fingerprint, holder_fingerprint, national_id_fingerprint, embedding, face_buckets)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9::real[], $10::int[]) on conflict (verification_id, kind) do nothing returning id`,
    [
      signalId,
      v.merchant.id,
      v.mode,
      v.id,
      signal.kind,
      signal.kind === 'document' ? signal.key : null,
      presenter.holder,
      presenter.nationalId,
      signal.kind === 'face' ? signal.embedding : null,
      signal.kind === 'face' ? faceBuckets(signal.embedding) : null,
    ],
  );
  return inserted.length ? signalId : null;
}

/**
 * Records what `v` presented and, when somebody else presented the same, updates each involved
 * account's network and writes its event (in `tx`). Returns the finding for `v`, or null when
 * there is no network (or `v` already left this kind of signal). Serialised per document key
 * so two sessions presenting one document at once both see each other.
 */
export async function joinFraudNetwork(
  tx: EntityManager,
  v: Verification,
  presenter: Presenter,
  signal: NetworkSignal,
): Promise<Finding | null> {
  const sql = rawSqlOf(tx);
  if (signal.kind === 'document')
    await sql.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `fraud:${v.mode}:document:${signal.key}`,
    ]);
  const signalId = await insertSignal(sql, v, presenter, signal);
  if (!signalId) return null;
  return settleNetwork(tx, v, presenter, signal, {
    signalId,
    others: await sharedSignals(sql, v.mode, signalId, signal),
  });
}

/** What a face search found for `v`: its own signal and the other faces close enough to it. */
export interface FaceSearch {
  signalId: string;
  others: MemberRow[];
}

/**
 * The same-face search, outside any transaction and without a lock: stores `v`'s face (its own
 * statement, committed at once) and then reads the faces sharing an index bucket with it.
 * Storing first means of two sessions presenting one face at once, the later search always
 * sees the earlier face. Null when `v` already left a face (a re-run).
 */
export async function searchFaceNetwork(
  em: EntityManager,
  v: Verification,
  presenter: Presenter,
  embedding: number[],
): Promise<FaceSearch | null> {
  const sql = rawSqlOf(em);
  const signal: NetworkSignal = { kind: 'face', embedding };
  const signalId = await insertSignal(sql, v, presenter, signal);
  if (!signalId) return null;
  return { signalId, others: await sharedSignals(sql, v.mode, signalId, signal) };
}

/** The networks of what a search found, each involved account's view and event written in `tx`; the finding for `v`, or null. */
export async function settleNetwork(
  tx: EntityManager,
  v: Verification,
  presenter: Presenter,
  signal: NetworkSignal,
  found: FaceSearch,
): Promise<Finding | null> {
  const { signalId, others } = found;
  if (!others.some((o) => differentPeople(presenter, o))) return null;
  const self: MemberRow = {
    id: signalId,
    merchant_id: v.merchant.id,
    verification_id: v.id,
    holder_fingerprint: presenter.holder,
    national_id_fingerprint: presenter.nationalId,
    api_key_id: v.apiKeyId ?? null,
  };
  const members = [...others, self];
  const key = signal.kind === 'document' ? signal.key : others[0]!.id;
  // One network at a time (not one lock for every face): its counts are read and written together.
  if (signal.kind === 'face')
    await rawSqlOf(tx).query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`fraud:${v.mode}:face:${key}`]);
  const merchants = [...new Set(members.map((m) => m.merchant_id))];
  const crossAccount = merchants.length > 1;
  let finding: Finding | null = null;
  for (const merchantId of merchants) {
    const own = members.filter((m) => m.merchant_id === merchantId);
    const network = await upsertNetwork(tx, merchantId, v.mode, signal.kind, key, own.length, crossAccount);
    const subject = merchantId === v.merchant.id ? self : own[own.length - 1]!;
    const data = {
      id: network.id,
      object: 'fraud_network',
      kind: signal.kind,
      scope: crossAccount ? 'cross_account' : 'same_account',
      verification_count: own.length,
      verifications: own.slice(-MAX_IDS_IN_EVENT).map((m) => m.verification_id),
      created_at: new Date(network.created_at).toISOString(),
      updated_at: new Date(network.updated_at).toISOString(),
    };
    if (network.inserted || network.changed) {
      tx.create(Event, {
        merchant: tx.getReference(Merchant, merchantId),
        mode: v.mode,
        type: network.inserted ? 'fraud_network.created' : 'fraud_network.modified',
        verificationId: subject.verification_id,
        apiKeyId: subject.api_key_id,
        payload: { fraud_network: data, verification: { id: subject.verification_id } },
      });
    }
    if (merchantId === v.merchant.id)
      finding = {
        code: 'FRAUD_NETWORK',
        network_id: network.id,
        kind: signal.kind,
        scope: data.scope,
        verification_count: own.length,
      };
  }
  return finding;
}

/** The document signal of an identity: the repeat control's keyed document fingerprint, when a number was read. */
export function documentSignal(vault: Vault, identity: Identity): NetworkSignal | null {
  const key = fingerprintsOf(vault, identity).document;
  return key ? { kind: 'document', key } : null;
}
