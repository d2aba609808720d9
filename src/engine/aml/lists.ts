import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseFtmLine } from './ftm.js';
import { looksLikeAltCsv, parseOfacCsv } from './ofac.js';
import { type AmlIndex, buildIndex } from './screen.js';
import type { AmlEntry } from './types.js';

export type ListFormat = 'ftm' | 'ofac_csv';

/** The format of a list file: by extension, else by its first bytes (`{` is FollowTheMoney JSON lines). */
export function sniffFormat(file: string): ListFormat {
  const ext = path.extname(file).toLowerCase();
  if (['.json', '.jsonl', '.ndjson', '.ftm'].includes(ext)) return 'ftm';
  if (ext === '.csv') return 'ofac_csv';
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(256);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    const first = head.subarray(0, read).toString('utf8').trimStart()[0];
    if (first === '{') return 'ftm';
    if (first === '"' || (first && /\d/.test(first))) return 'ofac_csv';
  } finally {
    fs.closeSync(fd);
  }
  throw new Error(`AML list ${file}: unknown format (expected FollowTheMoney JSON lines or OFAC sdn.csv / alt.csv)`);
}

/** Streams a FollowTheMoney export line by line (OpenSanctions' full export is gigabytes). */
async function loadFtm(file: string): Promise<AmlEntry[]> {
  const entries: AmlEntry[] = [];
  const fallback = path.basename(file).replace(/\..*$/, '');
  const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let number = 0;
  for await (const line of lines) {
    number += 1;
    try {
      const entry = parseFtmLine(line, fallback);
      if (entry) entries.push(entry);
    } catch (error) {
      throw new Error(`AML list ${file}:${number}: not a JSON entity (${(error as Error).message})`, { cause: error });
    }
  }
  return entries;
}

/**
 * Loads every list file: FollowTheMoney JSON lines, and OFAC CSV pairs. An sdn.csv takes its
 * aliases from an alt.csv named in the same list, else from `alt.csv` beside it.
 */
export async function loadListFiles(files: string[]): Promise<AmlEntry[]> {
  const entries: AmlEntry[] = [];
  const csvs = files.filter((f) => sniffFormat(f) === 'ofac_csv');
  const alts = csvs.filter((f) => looksLikeAltCsv(fs.readFileSync(f, 'utf8').slice(0, 4096)));
  for (const file of files) {
    if (sniffFormat(file) === 'ftm') entries.push(...(await loadFtm(file)));
  }
  for (const sdn of csvs.filter((f) => !alts.includes(f))) {
    const alt = alts.find((a) => path.dirname(a) === path.dirname(sdn)) ?? path.join(path.dirname(sdn), 'alt.csv');
    const altText = fs.existsSync(alt) ? fs.readFileSync(alt, 'utf8') : undefined;
    entries.push(...parseOfacCsv(fs.readFileSync(sdn, 'utf8'), altText));
  }
  return entries;
}

/** The synthetic lists that ship in the repository (data/aml), found from this module's folder in src/ or dist/. */
export function bundledListFiles(): string[] {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = path.join(dir, 'data', 'aml');
    if (fs.existsSync(candidate))
      return [path.join(candidate, 'synthetic-persons.ftm.jsonl'), path.join(candidate, 'ofac', 'sdn.csv')];
    dir = path.dirname(dir);
  }
  throw new Error('data/aml not found: the synthetic AML lists ship in the repository');
}

/** The operator's lists: `AML_LISTS`, comma-separated paths; unset or empty: the synthetic lists. */
export function configuredListFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const configured = (env.AML_LISTS ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  return configured.length > 0 ? configured.map((p) => path.resolve(p)) : bundledListFiles();
}

let cached: { key: string; index: Promise<AmlIndex> } | null = null;

/**
 * The screening index of the configured lists, built once per process (and per worker thread)
 * on first use. Read from `process.env` so worker threads see what the server sees.
 */
export function amlIndex(env: NodeJS.ProcessEnv = process.env): Promise<AmlIndex> {
  const files = configuredListFiles(env);
  const key = files.join(',');
  if (!cached || cached.key !== key) {
    const index = loadListFiles(files).then(buildIndex);
    // A failed load is retried at the next screening instead of poisoning the process.
    index.catch(() => {
      if (cached?.index === index) cached = null;
    });
    cached = { key, index };
  }
  return cached.index;
}

/**
 * Starts building the index in the background when a process starts working jobs, so the first
 * aml check does not wait for a large list, and logs what was loaded. A list that fails to
 * load is logged; aml checks then error (CHECK_UNAVAILABLE, review) until it loads.
 */
export function warmAmlIndex(logger: {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}): void {
  const started = Date.now();
  amlIndex().then(
    (index) =>
      logger.info({ lists: index.lists, names: index.names.length, ms: Date.now() - started }, 'AML lists loaded'),
    (error: unknown) => logger.error({ err: error }, 'AML lists could not be loaded; aml checks error until they do'),
  );
}
