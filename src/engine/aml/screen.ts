import { combinedScore, dobRelation, nameSimilarity, nationalityMatches } from './match.js';
import { blockingKeys, nameTokens } from './text.js';
import type { AmlEntry, AmlHit, AmlSubject } from './types.js';

/** Weak aliases (single nicknames, "Abu X") match with this much less. */
const WEAK_ALIAS_PENALTY = 0.1;
/** Candidates scored per screening at most, best-blocked first, so a common name stays cheap. */
const MAX_CANDIDATES = 5000;

interface IndexedName {
  entry: number;
  tokens: string[];
  weak: boolean;
}

/**
 * The in-memory screening index, built once: every entry name as tokens, and a blocking map
 * from each token's phonetic and prefix keys to the names carrying it. A screening scores
 * only the names sharing a key with the subject, never the whole list.
 */
export interface AmlIndex {
  entries: AmlEntry[];
  names: IndexedName[];
  blocks: Map<string, number[]>;
  /** Entries per list, for the start-up log and the README's figures. */
  lists: Record<string, number>;
}

export function buildIndex(entries: AmlEntry[]): AmlIndex {
  const names: IndexedName[] = [];
  const blocks = new Map<string, number[]>();
  const lists: Record<string, number> = {};
  entries.forEach((entry, e) => {
    lists[entry.list] = (lists[entry.list] ?? 0) + 1;
    const seen = new Set<string>();
    const all = [...entry.names.map((n) => [n, false] as const), ...entry.weakNames.map((n) => [n, true] as const)];
    for (const [name, weak] of all) {
      const tokens = nameTokens(name);
      const signature = tokens.join(' ');
      if (tokens.length === 0 || seen.has(signature)) continue;
      seen.add(signature);
      const n = names.push({ entry: e, tokens, weak }) - 1;
      for (const key of new Set(tokens.flatMap(blockingKeys))) {
        const block = blocks.get(key);
        if (block) block.push(n);
        else blocks.set(key, [n]);
      }
    }
  });
  return { entries, names, blocks, lists };
}

/** The subject's name tokens: first and last name when read apart, else the full name. */
export function subjectTokens(subject: AmlSubject): string[] {
  const split = [subject.firstName, subject.lastName].filter((p): p is string => !!p && p.trim() !== '').join(' ');
  return nameTokens(split || subject.fullName || '');
}

/** Names sharing a blocking key with the subject, those sharing the most keys first. */
function candidates(index: AmlIndex, tokens: string[]): number[] {
  const counts = new Map<number, number>();
  for (const token of tokens) {
    const hitThisToken = new Set<number>();
    for (const key of blockingKeys(token)) for (const n of index.blocks.get(key) ?? []) hitThisToken.add(n);
    for (const n of hitThisToken) counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_CANDIDATES)
    .map(([n]) => n);
}

/**
 * Screens one subject: every entry whose best name scores at least `minScore` once date of
 * birth and nationality are weighed, best first. Pure and JSON in, JSON out, so it can run
 * in a worker thread.
 */
export function screen(index: AmlIndex, subject: AmlSubject, minScore: number): AmlHit[] {
  const tokens = subjectTokens(subject);
  if (tokens.length === 0) return [];
  const best = new Map<number, AmlHit>();
  for (const n of candidates(index, tokens)) {
    const name = index.names[n]!;
    const entry = index.entries[name.entry]!;
    const nameScore = Math.max(0, nameSimilarity(tokens, name.tokens) - (name.weak ? WEAK_ALIAS_PENALTY : 0));
    const dob = dobRelation(subject.dateOfBirth, entry.birthDates);
    const nationality = nationalityMatches(subject.nationality, entry.nationalities);
    const score = combinedScore(nameScore, dob, nationality);
    const previous = best.get(name.entry);
    if (score < minScore || (previous && previous.score >= score)) continue;
    best.set(name.entry, {
      list: entry.list,
      entry_id: entry.id,
      kind: entry.kind,
      score,
      name_score: Math.round(nameScore * 1000) / 1000,
      date_of_birth: dob,
      nationality_match: nationality,
    });
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}
