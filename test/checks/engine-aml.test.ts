// Pure tests of the AML screening (list formats, index, matching, step options), the email check and the fraud-network finding.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Check } from '../../src/entities/check.entity.js';
import type { FlowSnapshot } from '../../src/entities/verification.entity.js';
import { parseFtmLine } from '../../src/engine/aml/ftm.js';
import {
  amlIndex,
  bundledListFiles,
  configuredListFiles,
  loadListFiles,
  sniffFormat,
} from '../../src/engine/aml/lists.js';
import { dobRelation, nameSimilarity } from '../../src/engine/aml/match.js';
import { ofacDates, parseOfacCsv, parseRemarks } from '../../src/engine/aml/ofac.js';
import { amlOptions, decideAml, screenIdentity } from '../../src/engine/aml/runner.js';
import { buildIndex, screen } from '../../src/engine/aml/screen.js';
import { countryCode, nameTokens } from '../../src/engine/aml/text.js';
import { evaluateEmail, isDisposableDomain, isValidAddress } from '../../src/engine/email.js';
import { RUNNERS } from '../../src/engine/runners.js';
import type { CheckInput, Identity } from '../../src/engine/types.js';
import { withNetworkFinding } from '../../src/services/fraud-networks/index.js';
import { AML_CASES } from '../../eval/aml-cases.js';
import { evaluateAml } from '../../eval/aml-evaluate.js';

const snapshot = (extra: Partial<FlowSnapshot> = {}): FlowSnapshot => ({
  steps: [],
  acceptedDocumentTypes: [],
  ...extra,
});
const amlCheck = (extra: Partial<Check> = {}) =>
  ({ type: 'aml', required: true, config: {}, sensitivity: null, threshold: null, ...extra }) as Check;
const input = (identity: Identity, check: Partial<Check> = {}, extra: Partial<CheckInput> = {}): CheckInput => ({
  check: amlCheck(check),
  snapshot: snapshot(),
  identity,
  sandbox: null,
  now: new Date('2026-11-25T00:00:00Z'),
  ...extra,
});
const sidorov = (extra: Record<string, string> = {}): Identity => ({
  document: {
    type: 'passport',
    number: 'RU1234567',
    issuing_country: 'RUS',
    first_name: 'IVAN',
    last_name: 'SIDOROV',
    date_of_birth: '1965-03-12',
    nationality: 'RUS',
    ...extra,
  },
});

const ofacDir = path.dirname(bundledListFiles()[1]!);
const sdnText = fs.readFileSync(path.join(ofacDir, 'sdn.csv'), 'utf8');
const altText = fs.readFileSync(path.join(ofacDir, 'alt.csv'), 'utf8');

describe('OpenSanctions FollowTheMoney JSON lines', () => {
  it('reads a Person: names, aliases in other scripts, first/last name, birth dates at their precision, nationalities as alpha-2', () => {
    const line = fs.readFileSync(bundledListFiles()[0]!, 'utf8').split('\n')[0]!;
    const entry = parseFtmLine(line, 'fallback');
    expect(entry).toMatchObject({
      list: 'synthetic_sanctions',
      id: 'syn-p-0001',
      kind: 'sanction',
      birthDates: ['1965-03-12'],
      nationalities: ['RU'],
    });
    expect(entry!.names).toEqual(expect.arrayContaining(['Ivan Petrovich Sidorov', 'Иван Петрович Сидоров']));
  });

  it('skips companies, sanctions and blank lines; topics decide sanction / pep / watchlist', () => {
    const person = (topics: string[]) =>
      JSON.stringify({ id: 'x', schema: 'Person', properties: { name: ['A B'], topics } });
    expect(
      parseFtmLine(JSON.stringify({ id: 'c', schema: 'Company', properties: { name: ['Acme'] } }), 'l'),
    ).toBeNull();
    expect(
      parseFtmLine(JSON.stringify({ id: 's', schema: 'Sanction', properties: { entity: ['x'] } }), 'l'),
    ).toBeNull();
    expect(parseFtmLine('   ', 'l')).toBeNull();
    expect(parseFtmLine(person(['sanction.linked']), 'l')?.kind).toBe('sanction');
    expect(parseFtmLine(person(['role.pep']), 'l')?.kind).toBe('pep');
    expect(parseFtmLine(person(['role.rca']), 'l')?.kind).toBe('pep');
    expect(parseFtmLine(person(['crime']), 'l')?.kind).toBe('watchlist');
    expect(parseFtmLine(person([]), 'dataset_from_file')?.list).toBe('dataset_from_file');
  });
});

describe('OFAC SDN CSV (sdn.csv + alt.csv)', () => {
  const entries = parseOfacCsv(sdnText, altText);

  it('keeps individuals only (not entities, vessels) with aliases from alt.csv, weak a.k.a.s apart', () => {
    expect(entries.map((e) => e.id).sort()).toEqual(['90001', '90002', '90003', '90006', '90007']);
    expect(entries.find((e) => e.id === '90001')).toMatchObject({
      list: 'ofac_sdn',
      kind: 'sanction',
      names: ['KAROLEV, Boris Antonovich', 'KAROLEV, Borys'],
      birthDates: ['1970-08-04'],
      nationalities: ['RU'],
    });
    expect(entries.find((e) => e.id === '90002')).toMatchObject({
      names: ['HADDAD, Samir', 'AL-HADDAD, Samir'],
      weakNames: ['ABU SAMIR'],
      birthDates: ['1966', '1967'],
      nationalities: ['LB'],
    });
  });

  it('parses the Remarks date forms and OFAC country names', () => {
    expect(ofacDates('12 Mar 1965')).toEqual(['1965-03-12']);
    expect(ofacDates('Mar 1965')).toEqual(['1965-03']);
    expect(ofacDates('circa 1966')).toEqual(['1966']);
    expect(ofacDates('1960 to 1962')).toEqual(['1960', '1961', '1962']);
    expect(parseRemarks('DOB 15 Feb 1975; alt. DOB 1976; nationality Korea, North; citizen Burma.')).toEqual({
      birthDates: ['1975-02-15', '1976'],
      nationalities: ['KP', 'MM'],
    });
    expect([
      countryCode('RUS'),
      countryCode('ru'),
      countryCode('Russia'),
      countryCode('D'),
      countryCode('Atlantis'),
    ]).toEqual(['RU', 'RU', 'RU', 'DE', undefined]);
  });
});

describe('loading the operator lists (AML_LISTS)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aml-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sniffs the format by extension, else by content; an sdn.csv finds alt.csv beside it', async () => {
    const ftm = path.join(dir, 'export');
    fs.writeFileSync(
      ftm,
      JSON.stringify({
        id: 'op-1',
        schema: 'Person',
        datasets: ['operator_list'],
        properties: { name: ['Opal Quartermaine'], birthDate: ['1950-01-01'] },
      }) + '\n',
    );
    const csvDir = path.join(dir, 'ofac');
    fs.mkdirSync(csvDir);
    fs.writeFileSync(path.join(csvDir, 'sdn.csv'), sdnText);
    fs.writeFileSync(path.join(csvDir, 'alt.csv'), altText);
    expect(sniffFormat(ftm)).toBe('ftm');
    expect(sniffFormat(path.join(csvDir, 'sdn.csv'))).toBe('ofac_csv');
    const entries = await loadListFiles([ftm, path.join(csvDir, 'sdn.csv')]);
    expect(entries).toHaveLength(6);
    expect(entries.find((e) => e.id === '90001')?.names).toContain('KAROLEV, Borys');
  });

  it('AML_LISTS (comma-separated) replaces the synthetic lists; unset uses them', async () => {
    const ftm = path.join(dir, 'only.jsonl');
    fs.writeFileSync(
      ftm,
      JSON.stringify({
        id: 'op-2',
        schema: 'Person',
        datasets: ['operator_list'],
        properties: { name: ['Opal Quartermaine'], birthDate: ['1950-01-01'], topics: ['sanction'] },
      }) + '\n',
    );
    expect(configuredListFiles({})).toEqual(bundledListFiles());
    expect(configuredListFiles({ AML_LISTS: ` ${ftm} , ` })).toEqual([ftm]);
    const index = await amlIndex({ AML_LISTS: ftm });
    expect(index.lists).toEqual({ operator_list: 1 });
    expect(
      screen(index, { firstName: 'Opal', lastName: 'Quartermaine', dateOfBirth: '1950-01-01' }, 0.85)[0],
    ).toMatchObject({ list: 'operator_list', entry_id: 'op-2' });
    expect(screen(index, { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: '1965-03-12' }, 0.5)).toEqual([]);
  });

  it('a file of unknown format is refused with its name', () => {
    const odd = path.join(dir, 'odd');
    fs.writeFileSync(odd, '<sdnList>');
    expect(() => sniffFormat(odd)).toThrow(/odd: unknown format/);
  });
});

describe('matching', () => {
  let index: Awaited<ReturnType<typeof amlIndex>>;
  beforeAll(async () => {
    index = buildIndex(await loadListFiles(bundledListFiles()));
  });
  const threshold = amlOptions(amlCheck(), snapshot()).threshold;

  it.each(AML_CASES.filter((c) => c.expect !== null).map((c) => [c.label, c] as const))('true hit: %s', (_label, c) => {
    expect(screen(index, c.subject, threshold)[0]?.entry_id).toBe(c.expect);
  });

  it.each(AML_CASES.filter((c) => c.expect === null).map((c) => [c.label, c] as const))(
    'true miss: %s',
    (_label, c) => {
      expect(screen(index, c.subject, threshold)).toEqual([]);
    },
  );

  it('date of birth tolerance: exact beats same year beats one year off; a partial list date matches at its precision', () => {
    expect(dobRelation('1965-03-12', ['1965-03-12'])).toBe('exact');
    expect(dobRelation('1965-07-01', ['1965-03-12'])).toBe('same_year');
    expect(dobRelation('1966-01-01', ['1965-03-12'])).toBe('within_one_year');
    expect(dobRelation('1970-01-01', ['1965-03-12'])).toBe('mismatch');
    expect(dobRelation('1965-03-30', ['1965-03'])).toBe('exact');
    expect(dobRelation(undefined, ['1965'])).toBe('unknown');
    const at = (dob: string) =>
      screen(index, { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: dob }, 0)[0]!.score;
    expect(at('1965-03-12')).toBeGreaterThan(at('1965-08-01'));
    expect(at('1965-08-01')).toBeGreaterThan(at('1966-08-01'));
    expect(at('1966-08-01')).toBeGreaterThan(at('1975-08-01'));
  });

  it('name order, transliteration and nationality boost', () => {
    expect(nameSimilarity(nameTokens('Sidorov Ivan'), nameTokens('Ivan Sidorov'))).toBe(1);
    expect(nameTokens('Иван Сидоров')).toEqual(['IVAN', 'SIDOROV']);
    const base = { firstName: 'IVAN', lastName: 'SIDOROV', dateOfBirth: '1966-01-01' };
    expect(screen(index, { ...base, nationality: 'RUS' }, 0)[0]!.score).toBeGreaterThan(
      screen(index, base, 0)[0]!.score,
    );
    expect(screen(index, { ...base, nationality: 'RUS' }, 0)[0]!.nationality_match).toBe(true);
  });

  it('the eval (engine:eval): every variant right at the default threshold, precision and recall 1', async () => {
    const e = await evaluateAml(threshold, index);
    expect(e.byCondition.map((c) => c.condition)).toEqual(
      expect.arrayContaining(['transliterated', 'reordered', 'typo', 'dob_within_one_year', 'namesake']),
    );
    for (const c of e.byCondition) expect(c).toMatchObject({ right: c.total });
    expect(e).toMatchObject({ precision: 1, recall: 1, falsePositives: 0, negativeHits: 0 });
    // A threshold no fuzzy match reaches loses recall, not precision: the eval can fail.
    const strict = await evaluateAml(0.999, index);
    expect(strict.recall).toBeLessThan(1);
    expect(strict.precision).toBe(1);
  });

  it('a lone surname never reaches the default threshold', () => {
    expect(screen(index, { lastName: 'SIDOROV', dateOfBirth: '1965-03-12' }, threshold)).toEqual([]);
  });
});

describe('the aml step: threshold, options and policy', () => {
  let index: Awaited<ReturnType<typeof amlIndex>>;
  beforeAll(async () => {
    index = await amlIndex({});
  });

  it('a live hit is a finding with list, entry id and score, and review by default', async () => {
    const out = await RUNNERS.aml!.run(input(sidorov()));
    expect(out).toMatchObject({ status: 'completed', verdict: 'review', reasonCodes: ['SANCTIONS_MATCH'] });
    expect(out.findings).toEqual([
      expect.objectContaining({
        code: 'SANCTIONS_MATCH',
        list: 'synthetic_sanctions',
        entry_id: 'syn-p-0001',
        score: 1,
        date_of_birth: 'exact',
      }),
    ]);
    expect(JSON.stringify(out.findings)).not.toMatch(/SIDOROV|Ivan/i);
  });

  it('config.on_match reject rejects; a PEP follows on_pep_match; ignore keeps the finding without a verdict', () => {
    const options = (config: Record<string, unknown>) => amlOptions(amlCheck({ config }), snapshot());
    expect(screenIdentity(index, sidorov(), options({ on_match: 'reject' }), snapshot())).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['SANCTIONS_MATCH'],
    });
    const pep: Identity = {
      document: { first_name: 'ELENA', last_name: 'VASQUEZ MORENO', date_of_birth: '1958-11-02' },
    };
    expect(screenIdentity(index, pep, options({ on_match: 'reject' }), snapshot())).toMatchObject({
      verdict: 'review',
      reasonCodes: ['PEP_MATCH'],
    });
    const ignored = screenIdentity(index, pep, options({ on_pep_match: 'ignore' }), snapshot());
    expect(ignored).toMatchObject({ verdict: 'approve', reasonCodes: [] });
    expect(ignored.findings).toHaveLength(1);
  });

  it('threshold: the step threshold, else 0.95 - 0.2 x sensitivity (step, then flow)', () => {
    expect(amlOptions(amlCheck(), snapshot()).threshold).toBe(0.85);
    expect(amlOptions(amlCheck({ threshold: 0.99 }), snapshot()).threshold).toBe(0.99);
    expect(amlOptions(amlCheck({ sensitivity: 1 }), snapshot()).threshold).toBe(0.75);
    expect(amlOptions(amlCheck(), snapshot({ sensitivity: 0 })).threshold).toBe(0.95);
    const offByOne = sidorov({ date_of_birth: '1966-02-01' });
    expect(screenIdentity(index, offByOne, amlOptions(amlCheck(), snapshot()), snapshot()).verdict).toBe('review');
    expect(
      screenIdentity(index, offByOne, amlOptions(amlCheck({ threshold: 0.95 }), snapshot()), snapshot()).verdict,
    ).toBe('approve');
  });

  it('the policy tree findings override the step; config.lists restricts the lists', () => {
    const tree = snapshot({ policyTree: { findings: { SANCTIONS_MATCH: { disposition: 'reject' } } } });
    expect(screenIdentity(index, sidorov(), amlOptions(amlCheck(), tree), tree).verdict).toBe('reject');
    const onlyOfac = amlOptions(amlCheck({ config: { lists: ['ofac_sdn'] } }), snapshot());
    expect(screenIdentity(index, sidorov(), onlyOfac, snapshot())).toMatchObject({ verdict: 'approve', findings: [] });
    expect(decideAml([], amlOptions(amlCheck(), snapshot()), snapshot())).toMatchObject({
      verdict: 'approve',
      score: 1,
    });
  });

  it('sandbox stays a simulation: screens clean with the sandbox tier', async () => {
    expect(await RUNNERS.aml!.run(input(sidorov(), {}, { sandbox: { outcome: 'approved' } }))).toMatchObject({
      verdict: 'approve',
      providerTier: 'sandbox',
      reasonCodes: [],
    });
  });
});

describe('the email check', () => {
  it('syntax: the WHATWG address form within RFC 5321 lengths', () => {
    for (const ok of ['ada@example.com', 'a.b+tag@sub.example.co.uk']) expect(isValidAddress(ok)).toBe(true);
    for (const bad of [
      'ada',
      'ada@',
      '@example.com',
      'a..b@example.com',
      'ada@example',
      `${'a'.repeat(65)}@example.com`,
      'ada@exa mple.com',
    ])
      expect(isValidAddress(bad)).toBe(false);
  });

  it('disposable domains from mailchecker, subdomains included', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('eu.mailinator.com')).toBe(true);
    expect(isDisposableDomain('gmail.com')).toBe(false);
  });

  it('reason codes: EMAIL_INVALID rejects, EMAIL_DISPOSABLE reviews (or rejects), EMAIL_NOT_CONFIRMED when confirmation is required', () => {
    expect(evaluateEmail('not-an-address', false, {})).toMatchObject({
      verdict: 'reject',
      reasonCodes: ['EMAIL_INVALID'],
    });
    expect(evaluateEmail('x@mailinator.com', false, {})).toMatchObject({
      verdict: 'review',
      reasonCodes: ['EMAIL_DISPOSABLE'],
    });
    expect(evaluateEmail('x@mailinator.com', false, { on_disposable: 'reject' })).toMatchObject({ verdict: 'reject' });
    expect(evaluateEmail('x@mailinator.com', false, { on_disposable: 'ignore' })).toMatchObject({ verdict: 'approve' });
    expect(evaluateEmail('ada@example.com', false, {})).toMatchObject({ verdict: 'approve', score: 0.8 });
    expect(evaluateEmail('ada@example.com', false, { require_confirmation: true })).toMatchObject({
      verdict: 'review',
      reasonCodes: ['EMAIL_NOT_CONFIRMED'],
    });
    expect(evaluateEmail('ada@example.com', true, { require_confirmation: true })).toMatchObject({
      verdict: 'approve',
      score: 1,
    });
  });

  it('the runner respects email_confirmed; sandbox and a missing address behave as before', async () => {
    const email = (identity: Identity, config: Record<string, unknown> = {}, sandbox: CheckInput['sandbox'] = null) =>
      RUNNERS.email!.run(input(identity, { type: 'email', config }, { sandbox }));
    expect(
      await email({ email: 'ada@example.com', email_confirmed: true }, { require_confirmation: true }),
    ).toMatchObject({ verdict: 'approve' });
    expect(await email({ email: 'x@mailinator.com' }, {}, { outcome: 'approved' })).toMatchObject({
      verdict: 'approve',
      score: 1,
    });
    expect(await email({})).toMatchObject({ status: 'skipped', reasonCodes: ['EMAIL_NOT_PROVIDED'] });
  });
});

describe('the fraud-network finding', () => {
  const approved = {
    status: 'completed' as const,
    verdict: 'approve' as const,
    score: 0.95,
    reasonCodes: [],
    providerTier: 'standard',
  };
  const finding = {
    code: 'FRAUD_NETWORK',
    network_id: 'fn_x',
    kind: 'document',
    scope: 'cross_account',
    verification_count: 1,
  };

  it('sends the check to review with FRAUD_NETWORK by default; the policy tree may reject or waive it, keeping the finding', () => {
    expect(withNetworkFinding(approved, finding, snapshot())).toMatchObject({
      verdict: 'review',
      reasonCodes: ['FRAUD_NETWORK'],
      findings: [finding],
    });
    const reject = snapshot({ policyTree: { findings: { FRAUD_NETWORK: { disposition: 'reject' } } } });
    expect(withNetworkFinding(approved, finding, reject)).toMatchObject({ verdict: 'reject' });
    const waive = snapshot({ policyTree: { findings: { FRAUD_NETWORK: { disposition: 'ignore' } } } });
    expect(withNetworkFinding(approved, finding, waive)).toMatchObject({
      verdict: 'approve',
      reasonCodes: [],
      findings: [finding],
    });
  });
});
