import { Badge, Card, Grid, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '../hooks';
import { CaseMembersDocument, CaseTimelineDocument, VerificationDocument } from '../graphql/generated';
import { Link } from '../router';
import { reasonInWords, shortId, when } from '../words';
import { Checks } from './case/Checks';
import { Timeline } from './case/Timeline';
import { Failure, Loading, Status } from './shared';

export function VerificationScreen({ id }: { id: string }) {
  const verification = useQuery(VerificationDocument, { id });
  const timeline = useQuery(CaseTimelineDocument, { verificationId: id, targetIds: [id] });
  const members = useQuery(CaseMembersDocument, {});
  const names = new Map((members.data?.members.nodes ?? []).map((m) => [m.id, m.name]));
  const v = verification.data?.verification;
  if (!v) return verification.error ? <Failure error={verification.error} /> : <Loading when />;
  const rows: [string, React.ReactNode][] = [
    ['Status', <Status value={v.status} />],
    ['Verdict', v.verdict ?? '—'],
    ['Score', v.score == null ? '—' : v.score.toFixed(2)],
    ['Reasons', v.reasonCodes.map(reasonInWords).join('; ') || '—'],
    ['Environment', v.mode],
    ['Flow', v.flow?.name ?? '—'],
    [
      'Decided by',
      v.decidedBy
        ? v.decidedBy.type === 'member'
          ? (names.get(v.decidedBy.id) ?? 'A team member')
          : `API key`
        : v.changeReason
          ? v.changeReason.replace('_', ' ')
          : '—',
    ],
    ['Created', when(v.createdAt)],
    ['Updated', when(v.updatedAt)],
    ['Expires', when(v.expiresAt)],
    [
      'Identity version',
      v.identityVersion ? `${v.identityVersion} (edited ${when(v.identityEditedAt)})` : 'Not edited',
    ],
  ];
  return (
    <Stack>
      <div>
        <Text size="sm">
          <Link to="/console/verifications">← Verifications</Link>
        </Text>
        <Title order={2}>
          Verification <span className="mono">{shortId(v.id)}</span>
        </Title>
        <Group gap={4} mt={4}>
          {v.tags.map((t) => (
            <Badge key={t.id} color={t.color} variant="light" autoContrast>
              {t.name}
            </Badge>
          ))}
        </Group>
      </div>
      <Grid>
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Card withBorder padding="sm" mb="md">
            <Table withRowBorders={false} aria-label="Verification">
              <Table.Tbody>
                {rows.map(([k, val]) => (
                  <Table.Tr key={k}>
                    <Table.Th w="35%">{k}</Table.Th>
                    <Table.Td>{val}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Card>
          <Checks checks={v.checks} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Timeline data={timeline.data} names={names} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
