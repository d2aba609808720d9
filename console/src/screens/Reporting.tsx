import { useState } from 'react';
import { Button, Card, Group, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import { gql } from '../api';
import { download, useQuery } from '../hooks';
import { ExportUsageDocument, ExportVerificationsDocument, ReportingDocument } from '../graphql/generated';
import { useSession } from '../session';
import { reasonInWords } from '../words';
import { Failure, Loading, PageHeader } from './shared';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const seconds = (s: number | null | undefined) =>
  s == null
    ? '—'
    : s < 120
      ? `${Math.round(s)} s`
      : s < 7200
        ? `${Math.round(s / 60)} min`
        : `${(s / 3600).toFixed(1)} h`;

function Figure({ label, value }: { label: string; value: string | number }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed" tt="uppercase">
        {label}
      </Text>
      <Text fw={700} size="xl">
        {value}
      </Text>
    </Card>
  );
}

/** Overview, daily analytics, funnel, reason codes, time to decision, usage and the CSV exports. Lazy-loaded with the chart library. */
export default function ReportingScreen() {
  const session = useSession();
  const [since, setSince] = useState(daysAgo(30));
  const sinceIso = since ? new Date(since).toISOString() : null;
  const report = useQuery(ReportingDocument, {
    filter: { environment: session.environment, since: sinceIso },
    environment: session.environment,
    since: sinceIso,
  });
  const [exportNote, setExportNote] = useState<string | null>(null);
  const [exportError, setExportError] = useState<Error | null>(null);

  const exportCsv = async (kind: 'verifications' | 'usage') => {
    setExportError(null);
    try {
      const result =
        kind === 'verifications'
          ? (
              await gql(ExportVerificationsDocument, {
                environment: session.environment,
                since: sinceIso,
                includeIdentity: false,
              })
            ).exportVerifications
          : (await gql(ExportUsageDocument, { environment: session.environment, since: sinceIso })).exportUsage;
      download(result.filename, result.csv);
      setExportNote(`${result.filename}: ${result.rows} rows${result.truncated ? ' (cut at 5,000)' : ''}.`);
    } catch (caught) {
      setExportError(caught as Error);
    }
  };

  const d = report.data;
  const days = (d?.reportingAnalytics.days ?? []).map((day) => ({
    day: day.day.slice(5),
    approved: day.byStatus.approved,
    rejected: day.byStatus.rejected,
    review: day.byStatus.manualReview,
    total: day.total,
    automated: day.automated,
  }));
  const funnel = d
    ? [
        { step: 'Created', count: d.decisionFunnel.created },
        { step: 'Submitted', count: d.decisionFunnel.submitted },
        { step: 'Decided', count: d.decisionFunnel.decided },
      ]
    : [];
  const reasons = (d?.reasonCodeBreakdown ?? []).slice(0, 10);

  return (
    <Stack>
      <PageHeader title="Reporting">
        <Loading when={report.loading} />
        {session.can('verifications.export') && (
          <Button variant="default" onClick={() => void exportCsv('verifications')}>
            Export verifications CSV
          </Button>
        )}
        {session.can('usage.export') && (
          <Button variant="default" onClick={() => void exportCsv('usage')}>
            Export usage CSV
          </Button>
        )}
      </PageHeader>
      <TextInput label="Since" type="date" value={since} onChange={(e) => setSince(e.currentTarget.value)} w={180} />
      {exportNote && (
        <Text size="sm" role="status">
          Exported {exportNote}
        </Text>
      )}
      <Failure error={exportError ?? report.error} />
      {d && (
        <>
          <SimpleGrid cols={{ base: 2, md: 5 }}>
            <Figure label="Verifications" value={d.reportingOverview.total} />
            <Figure label="Awaiting review" value={d.reportingOverview.awaitingReview} />
            <Figure label="Decided by reviewers" value={d.reportingOverview.decidedByReviewer} />
            <Figure label="Automated" value={d.reportingOverview.automated} />
            <Figure
              label="Automation rate"
              value={
                d.reportingOverview.automationRate == null
                  ? '—'
                  : `${Math.round(d.reportingOverview.automationRate * 100)}%`
              }
            />
          </SimpleGrid>
          <Card withBorder>
            <Title order={3} size="h4" mb="sm">
              Daily outcomes
            </Title>
            <div
              style={{ height: 260 }}
              role="img"
              aria-label="Daily outcomes chart: approved, rejected and in review per day"
            >
              <ResponsiveContainer>
                <BarChart data={days}>
                  <CartesianGrid strokeDasharray="3 3" />
                  <XAxis dataKey="day" />
                  <YAxis allowDecimals={false} />
                  <Tooltip />
                  <Legend />
                  <Bar dataKey="approved" stackId="a" fill="#2b8a3e" name="Approved" />
                  <Bar dataKey="rejected" stackId="a" fill="#c92a2a" name="Rejected" />
                  <Bar dataKey="review" stackId="a" fill="#e8590c" name="In review" />
                </BarChart>
              </ResponsiveContainer>
            </div>
          </Card>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Card withBorder>
              <Title order={3} size="h4" mb="sm">
                Funnel
              </Title>
              <div
                style={{ height: 220 }}
                role="img"
                aria-label={`Funnel: ${funnel.map((f) => `${f.step} ${f.count}`).join(', ')}`}
              >
                <ResponsiveContainer>
                  <BarChart data={funnel} layout="vertical">
                    <XAxis type="number" allowDecimals={false} />
                    <YAxis type="category" dataKey="step" width={80} />
                    <Tooltip />
                    <Bar dataKey="count" fill="#3b5bdb" name="Verifications" />
                  </BarChart>
                </ResponsiveContainer>
              </div>
            </Card>
            <Card withBorder>
              <Title order={3} size="h4" mb="sm">
                Volume and automation
              </Title>
              <div style={{ height: 220 }} role="img" aria-label="Verifications and automated decisions per day">
                <ResponsiveContainer>
                  <LineChart data={days}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis dataKey="day" />
                    <YAxis allowDecimals={false} />
                    <Tooltip />
                    <Legend />
                    <Line dataKey="total" stroke="#3b5bdb" name="Created" dot={false} />
                    <Line dataKey="automated" stroke="#2b8a3e" name="Automated" dot={false} />
                  </LineChart>
                </ResponsiveContainer>
              </div>
            </Card>
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, md: 3 }}>
            <Card withBorder>
              <Title order={3} size="h4" mb="sm">
                Reason codes
              </Title>
              <Table aria-label="Reason codes">
                <Table.Tbody>
                  {reasons.map((r) => (
                    <Table.Tr key={r.reasonCode}>
                      <Table.Td title={r.reasonCode}>{reasonInWords(r.reasonCode)}</Table.Td>
                      <Table.Td ta="right">{r.count}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
              {reasons.length === 0 && <Text c="dimmed">None.</Text>}
            </Card>
            <Card withBorder>
              <Title order={3} size="h4" mb="sm">
                Time to decision
              </Title>
              <Table aria-label="Time to decision">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>By</Table.Th>
                    <Table.Th>Count</Table.Th>
                    <Table.Th>Median</Table.Th>
                    <Table.Th>90th</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {(['engine', 'reviewer'] as const).map((k) => (
                    <Table.Tr key={k}>
                      <Table.Td>{k === 'engine' ? 'Engine' : 'Reviewers'}</Table.Td>
                      <Table.Td>{d.timeToDecision[k].count}</Table.Td>
                      <Table.Td>{seconds(d.timeToDecision[k].p50Seconds)}</Table.Td>
                      <Table.Td>{seconds(d.timeToDecision[k].p90Seconds)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Card>
            <Card withBorder>
              <Title order={3} size="h4" mb="sm">
                Usage
              </Title>
              <Text size="sm">
                {d.usageReport.total} check runs, {d.usageReport.billable} billable
              </Text>
              <Table aria-label="Usage by check type">
                <Table.Tbody>
                  {d.usageReport.byCheckType.map((u) => (
                    <Table.Tr key={u.checkType}>
                      <Table.Td>{u.checkType}</Table.Td>
                      <Table.Td ta="right">{u.count}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Card>
          </SimpleGrid>
          <Group />
        </>
      )}
    </Stack>
  );
}
