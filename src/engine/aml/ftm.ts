import { countryCode } from './text.js';
import type { AmlEntry, AmlKind } from './types.js';

/**
 * OpenSanctions' FollowTheMoney export (`entities.ftm.json`, one JSON entity a line):
 * `{ id, schema, caption, datasets, properties: { name, alias, weakAlias, firstName,
 * lastName, birthDate, nationality, citizenship, topics, ... } }`. Only `Person` entities
 * are screened; companies, vessels, sanctions and addresses are other schemas and skipped.
 */
interface FtmEntity {
  id?: unknown;
  schema?: unknown;
  datasets?: unknown;
  properties?: Record<string, unknown>;
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '') : [];

/** OpenSanctions topics: `sanction*` first, then `role.pep` / `role.rca` (relatives and close associates). */
function kindOf(topics: string[]): AmlKind {
  if (topics.some((t) => t === 'sanction' || t.startsWith('sanction.'))) return 'sanction';
  if (topics.some((t) => t === 'role.pep' || t === 'role.rca')) return 'pep';
  return 'watchlist';
}

/** FtM dates are ISO prefixes (`1965`, `1965-03`, `1965-03-12`, sometimes with a time). */
const isoDate = (value: string): string | null => /^(\d{4})(-\d{2})?(-\d{2})?/.exec(value.trim())?.[0] ?? null;

/** One line of the export as an entry; null for other schemas, blank lines or entities without a name. */
export function parseFtmLine(line: string, fallbackList: string): AmlEntry | null {
  const text = line.trim();
  if (!text) return null;
  const entity = JSON.parse(text) as FtmEntity;
  if (entity.schema !== 'Person' || typeof entity.id !== 'string') return null;
  const p = entity.properties ?? {};
  const names = [...strings(p.name), ...strings(p.alias), ...strings(p.previousName)];
  const first = strings(p.firstName)[0];
  const last = strings(p.lastName)[0];
  if (first && last) names.push(`${first} ${strings(p.middleName)[0] ?? ''} ${last}`.replace(/\s+/g, ' '));
  if (names.length === 0) return null;
  const datasets = strings(entity.datasets);
  return {
    list: datasets[0] ?? fallbackList,
    id: entity.id,
    kind: kindOf(strings(p.topics)),
    names: [...new Set(names)],
    weakNames: strings(p.weakAlias),
    birthDates: [
      ...new Set(
        strings(p.birthDate)
          .map(isoDate)
          .filter((d): d is string => d !== null),
      ),
    ],
    nationalities: [
      ...new Set(
        [...strings(p.nationality), ...strings(p.citizenship)].map(countryCode).filter((c): c is string => !!c),
      ),
    ],
  };
}
