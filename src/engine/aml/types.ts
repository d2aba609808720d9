/** What a list entry is about: sanctions, a politically exposed person, or another watchlist. */
export type AmlKind = 'sanction' | 'pep' | 'watchlist';

/**
 * One person of a sanctions or PEP list, as the loaders produce it from any format.
 * Birth dates keep the precision the list gives: `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
 */
export interface AmlEntry {
  /** The list the entry came from (`ofac_sdn`, an OpenSanctions dataset name, ...). */
  list: string;
  /** The entry's id in that list (OFAC `ent_num`, FollowTheMoney entity id). */
  id: string;
  kind: AmlKind;
  /** Primary name first, then aliases; as printed by the list. */
  names: string[];
  /** Weak aliases (OFAC "weak" a.k.a., FtM `weakAlias`): they match with a lower score. */
  weakNames: string[];
  birthDates: string[];
  /** ISO 3166 alpha-2, upper case. */
  nationalities: string[];
}

/** Who is screened: what the document check read. */
export interface AmlSubject {
  firstName?: string;
  lastName?: string;
  /** A full name when the document gives no split. */
  fullName?: string;
  /** YYYY-MM-DD. */
  dateOfBirth?: string;
  /** ISO alpha-2, alpha-3 or a country name. */
  nationality?: string;
}

/** How the subject's date of birth relates to the entry's. */
export type DobRelation = 'exact' | 'same_year' | 'within_one_year' | 'mismatch' | 'unknown';

/** One hit: JSON-serialisable, no name of the applicant or of the entry. */
export interface AmlHit {
  list: string;
  entry_id: string;
  kind: AmlKind;
  /** 0 to 1, the figure compared with the step's threshold. */
  score: number;
  name_score: number;
  date_of_birth: DobRelation;
  nationality_match: boolean;
}
