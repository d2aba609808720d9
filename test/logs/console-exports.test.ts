import type { BootstrapResult } from '../../src/services/access/index.js';
import { AuditTrailDocument, ExportUsageDocument, ExportVerificationsDocument } from '../graphql/generated.js';
import { gql } from '../support/graphql.js';
import type { TestServer } from '../support/test-server.js';
import { withTestAccount } from '../support/account.js';
import { createVerification } from '../support/factories.js';
import { signedInMember } from '../support/members.js';
import { waitFor } from '../support/wait.js';

let server: TestServer;
let account: BootstrapResult;
let owner: string;
withTestAccount((t) => {
  ({ server, account } = t);
  owner = account.member.session_token;
});

const exportVerifications = (body: Record<string, unknown>, token = owner) =>
  server.request<any>('/v1/console/exports/verifications', { token, body });

/** Rows of a CSV answer as objects keyed by the header (the test data has no commas, quotes or newlines inside cells). */
function rowsOf(csv: string): Record<string, string>[] {
  const [header, ...lines] = csv.trimEnd().split('\n');
  const names = header!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [names[i], cell])));
}

const audits = async (action: string, token = owner) =>
  (await server.request('/v1/console/audit?limit=100', { token })).body.data.filter(
    (a: { action: string }) => a.action === action,
  );

/**
 * `count` more verifications of `of`'s sandbox, copied in SQL from one made through the API
 * (one a minute back in time each), so the export cap is reached in well under a second.
 */
async function seedVerifications(of: BootstrapResult, count: number): Promise<void> {
  const template = await createVerification(server, of, 'sandbox');
  await server.sql(
    `insert into verifications
     select r.* from verifications t cross join generate_series(1, $2::int) g
     cross join lateral jsonb_populate_record(null::verifications, to_jsonb(t) || jsonb_build_object(
       'id', 'vs_seedexp' || g, 'status', 'approved', 'verdict', 'approve', 'identity', null,
       'email_fingerprint', null, 'reference_fingerprint', null, 'document_fingerprint', null, 'national_id_fingerprint', null,
       'created_at', now() - make_interval(mins => g::int), 'updated_at', now() - make_interval(mins => g::int))) r
     where t.id = $1`,
    [template.id, count],
  );
}

describe('POST /v1/console/exports/verifications', () => {
  it('streams CSV capped at 5,000 rows with X-Rows and X-Truncated, newest first, and audits the row count', async () => {
    const big = await server.bootstrap();
    await seedVerifications(big, 5_100);
    const res = await exportVerifications({}, big.member.session_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('x-rows')).toBe('5000');
    expect(res.headers.get('x-truncated')).toBe('true');
    const rows = rowsOf(res.body);
    expect(rows).toHaveLength(5000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(5000);
    expect(Object.keys(rows[0]!)).toEqual([
      'id',
      'mode',
      'status',
      'verdict',
      'decline_type',
      'reason_codes',
      'change_reason',
      'flow_id',
      'created_at',
      'decided_at',
      'consent_version',
      'consent_language',
      'consent_given_at',
      'return_url',
    ]);
    const times = rows.map((r) => Date.parse(r.created_at!));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const exported = await audits('export.verifications', big.member.session_token);
    expect(exported.find((a: { mode: string }) => a.mode === 'live')).toMatchObject({ row_count: 0 });
    expect(exported.find((a: { mode: string }) => a.mode === 'sandbox')).toMatchObject({
      member_id: big.member.id,
      mode: 'sandbox',
      row_count: 5000,
      verification_id: null,
      field_names: null,
    });

    const recent = await exportVerifications(
      { since: new Date(Date.now() - 30.5 * 60_000).toISOString() },
      big.member.session_token,
    );
    expect(recent.headers.get('x-rows')).toBe('31');
    expect(recent.headers.get('x-truncated')).toBe('false');
    expect(rowsOf(recent.body)).toHaveLength(31);
  });

  it('neutralises CSV injection: cells starting with =, +, - or @ are written as text', async () => {
    const v = await createVerification(server, account, 'sandbox', {
      applicant: { email: 'formula@example.com', reference_id: '+SUM(A1:A9)' },
      sandbox: {
        outcome: 'pending',
        document: {
          type: 'passport',
          number: 'P7654321',
          issuing_country: 'GBR',
          date_of_birth: '1990-01-01',
          expiry_date: '2031-01-01',
          first_name: '=HYPERLINK("http://evil")',
          last_name: '@cmd',
          national_id: '-2+3',
        },
      },
    });
    const res = await exportVerifications({
      include_identity: true,
      since: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil"")"`);
    const row = rowsOf(res.body.replace(/"'=HYPERLINK\(""http:\/\/evil""\)"/, 'FORMULA')).find((r) => r.id === v.id)!;
    expect(row).toMatchObject({
      identity_status: 'held',
      email: 'formula@example.com',
      reference_id: "'+SUM(A1:A9)",
      last_name: "'@cmd",
      national_id: "'-2+3",
      first_name: 'FORMULA',
    });
    for (const line of res.body.split('\n')) for (const cell of line.split(',')) expect(cell).not.toMatch(/^"?[=+\-@]/);
  });

  it('audits an export with identity as a different event, with counts only, never values', async () => {
    await createVerification(server, account, 'sandbox', { applicant: { email: 'audited.person@example.com' } });
    const before = await audits('export.verifications_with_identity');
    const res = await exportVerifications({ include_identity: true });
    expect(res.status).toBe(200);
    expect(res.body).toContain('audited.person@example.com');
    const after = await audits('export.verifications_with_identity');
    expect(after.length).toBe(before.length + 2); // one row per environment of the seat
    const sandboxRow = after.find((a: { mode: string }) => a.mode === 'sandbox');
    expect(sandboxRow.row_count).toBe(rowsOf(res.body).filter((r) => r.mode === 'sandbox').length);
    expect(JSON.stringify(after)).not.toMatch(/audited\.person|@example/);
    const plain = await exportVerifications({});
    expect(plain.body).not.toContain('audited.person@example.com');
    expect(plain.body.split('\n')[0]).not.toContain('email');
  });

  it("is scoped to the account and the seat's environments", async () => {
    const mine = await createVerification(server, account, 'sandbox');
    const stranger = await server.bootstrap();
    const theirs = await createVerification(server, stranger, 'sandbox');
    const ownIds = rowsOf((await exportVerifications({})).body).map((r) => r.id);
    expect(ownIds).toContain(mine.id);
    expect(ownIds).not.toContain(theirs.id);
    const liveSeat = await signedInMember(server, account, ['verifications.reveal', 'verifications.export'], ['live']);
    const live = await exportVerifications({}, liveSeat.token);
    expect(rowsOf(live.body).every((r) => r.mode === 'live')).toBe(true);
    expect(rowsOf((await exportVerifications({ mode: 'sandbox' }, liveSeat.token)).body)).toEqual([]);
  });

  it('needs verifications.export together with verifications.reveal, and refuses bad input with the envelope', async () => {
    const revealOnly = await signedInMember(server, account, ['verifications.reveal']);
    const exportOnly = await signedInMember(server, account, ['verifications.export']);
    for (const token of [revealOnly.token, exportOnly.token]) {
      const res = await exportVerifications({}, token);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    }
    const bad = await exportVerifications({ include_identity: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('include_identity');
    expect((await exportVerifications({ columns: ['x'] })).body.error.code).toBe('PARAMETER_UNKNOWN');
    expect((await exportVerifications({ since: 'yesterday' })).body.error.param).toBe('since');
  });
});

describe('POST /v1/console/exports/usage', () => {
  it('answers usage per day, environment and check type as CSV equal to a plain count, audited as export.usage', async () => {
    const v = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'approved' } });
    await waitFor(
      async () => (await server.sql(`select 1 from usage_records where verification_id = $1`, [v.id])).length > 0,
      15_000,
      'usage records',
    );
    const usageOnly = await signedInMember(server, account, ['usage.export']);
    const res = await server.request<string>('/v1/console/exports/usage', { token: usageOnly.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-truncated')).toBe('false');
    const rows = rowsOf(res.body);
    expect(res.body.split('\n')[0]).toBe('day,environment,check_type,count,billable');
    expect(res.headers.get('x-rows')).toBe(String(rows.length));
    const counted = await server.sql<{ day: string; mode: string; check_type: string; count: number }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, mode, check_type, count(*)::int as count
         from usage_records where merchant_id = $1 group by 1, 2, 3`,
      [account.merchant.id],
    );
    expect(rows.map((r) => `${r.day}|${r.environment}|${r.check_type}|${r.count}`).sort()).toEqual(
      counted.map((c) => `${c.day}|${c.mode}|${c.check_type}|${c.count}`).sort(),
    );
    const [audit] = await audits('export.usage');
    expect(audit).toMatchObject({ member_id: usageOnly.id, action: 'export.usage' });
    const refused = await server.request('/v1/console/exports/usage', {
      token: (await signedInMember(server, account, ['logs.read'])).token,
      body: {},
    });
    expect(refused.status).toBe(403);
  });
});

describe('GraphQL: exportVerifications, exportUsage and auditEvents over the same services', () => {
  it('exports the same CSV as REST, with rows and truncated, audited the same way; refuses a seat without export or reveal', async () => {
    await createVerification(server, account, 'sandbox', { applicant: { email: 'graphql.export@example.com' } });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const rest = await exportVerifications({ since, include_identity: true, mode: 'sandbox' });
    const before = (await audits('export.verifications_with_identity')).length;
    const res = await gql(server, owner, ExportVerificationsDocument, {
      since,
      includeIdentity: true,
      environment: 'sandbox',
    });
    expect(res.body.errors).toBeUndefined();
    const csv = res.body.data!.exportVerifications;
    expect(csv).toMatchObject({
      rows: Number(rest.headers.get('x-rows')),
      truncated: false,
      filename: expect.stringMatching(/^verifications-\d{4}-\d{2}-\d{2}\.csv$/),
    });
    expect(csv.csv).toBe(rest.body);
    expect(csv.csv).toContain('graphql.export@example.com');
    const after = await audits('export.verifications_with_identity');
    expect(after.length).toBe(before + 1);
    expect(after[0]).toMatchObject({
      member_id: account.member.id,
      mode: 'sandbox',
      row_count: csv.rows,
      verification_id: null,
    });

    for (const permissions of [['verifications.reveal'], ['verifications.export']] as const) {
      const seat = await signedInMember(server, account, [...permissions]);
      const refused = await gql(server, seat.token, ExportVerificationsDocument, {});
      expect(refused.body.errors![0]!.extensions.code).toBe('INSUFFICIENT_PERMISSIONS');
    }
  });

  it('exportUsage answers the REST usage CSV and needs usage.export', async () => {
    const usageOnly = await signedInMember(server, account, ['usage.export']);
    const rest = await server.request<string>('/v1/console/exports/usage', { token: usageOnly.token, body: {} });
    const res = await gql(server, usageOnly.token, ExportUsageDocument, {});
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.exportUsage).toMatchObject({
      rows: Number(rest.headers.get('x-rows')),
      truncated: false,
      csv: rest.body,
    });
    const refused = await gql(
      server,
      (await signedInMember(server, account, ['logs.read'])).token,
      ExportUsageDocument,
      {},
    );
    expect(refused.body.errors![0]!.extensions.code).toBe('INSUFFICIENT_PERMISSIONS');
  });

  it('auditEvents pages through the same rows as GET /v1/console/audit, export rows included, and the database refuses to change them', async () => {
    await exportVerifications({ mode: 'sandbox' });
    const rest = (await server.request('/v1/console/audit?limit=100', { token: owner })).body.data as {
      id: string;
      action: string;
      row_count: number | null;
      verification_id: string | null;
    }[];
    expect(rest.map((a) => a.action)).toEqual(
      expect.arrayContaining(['export.verifications', 'export.verifications_with_identity', 'export.usage']),
    );
    const nodes: { id: string; action: string; rowCount?: number | null; verificationId?: string | null }[] = [];
    let after: string | null | undefined;
    do {
      const page = await gql(server, owner, AuditTrailDocument, { first: 3, after });
      expect(page.body.errors).toBeUndefined();
      nodes.push(...page.body.data!.auditEvents.nodes);
      after = page.body.data!.auditEvents.pageInfo.hasNextPage ? page.body.data!.auditEvents.pageInfo.endCursor : null;
    } while (after);
    expect(nodes.map((n) => [n.id, n.action, n.rowCount, n.verificationId])).toEqual(
      rest.map((a) => [a.id, a.action, a.row_count, a.verification_id]),
    );
    const exportRow = rest.find((a) => a.action === 'export.verifications')!;
    await expect(server.sql('update audit_events set row_count = 0 where id = $1', [exportRow.id])).rejects.toThrow(
      /append-only/,
    );
    await expect(server.sql('delete from audit_events where id = $1', [exportRow.id])).rejects.toThrow(/append-only/);
  });
});
