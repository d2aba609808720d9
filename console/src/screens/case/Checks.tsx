import { Badge, Card, List, SimpleGrid, Stack, Text } from '@mantine/core';
import type { VerificationDetailFragment } from '../../graphql/generated';
import { CHECK_WORDS, reasonInWords, VERDICT_WORDS } from '../../words';

type Check = VerificationDetailFragment['checks'][number];

const VERDICT_COLORS: Record<string, string> = { approve: 'green', reject: 'red', review: 'orange' };

function Finding({ finding }: { finding: Record<string, unknown> }) {
  if (finding.code === 'FRAUD_NETWORK') {
    return (
      <Text size="sm">
        {reasonInWords('FRAUD_NETWORK')}
        {finding.matched_on ? ` (matched on ${String(finding.matched_on)})` : ''}
      </Text>
    );
  }
  if (typeof finding.list === 'string') {
    const score = typeof finding.score === 'number' ? ` score ${finding.score.toFixed(2)}` : '';
    return (
      <Text size="sm">
        {reasonInWords(String(finding.code ?? 'WATCHLIST_MATCH'))}: list <b>{finding.list}</b>, entry{' '}
        {String(finding.entry_id)}
        {score}
        {finding.date_of_birth ? `, date of birth ${String(finding.date_of_birth)}` : ''}
        {finding.nationality_match ? ', nationality matches' : ''}
      </Text>
    );
  }
  return (
    <Text size="sm" className="mono">
      {JSON.stringify(finding)}
    </Text>
  );
}

export function Checks({ checks }: { checks: Check[] }) {
  const aml = checks.flatMap((c) => (c.type === 'aml' ? c.findings.filter((f) => f.code !== 'FRAUD_NETWORK') : []));
  const network = checks.flatMap((c) => c.findings.filter((f) => f.code === 'FRAUD_NETWORK'));
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
        {checks.map((check) => (
          <Card key={check.id} withBorder padding="sm" aria-label={`${CHECK_WORDS[check.type] ?? check.type} check`}>
            <Text fw={600}>
              {CHECK_WORDS[check.type] ?? check.type}
              {!check.required && (
                <Text span size="xs" c="dimmed">
                  {' '}
                  (optional)
                </Text>
              )}
            </Text>
            <Text component="div" size="sm">
              Verdict:{' '}
              <Badge variant="light" color={VERDICT_COLORS[check.verdict ?? ''] ?? 'gray'} autoContrast>
                {check.verdict ? VERDICT_WORDS[check.verdict] : check.status}
              </Badge>{' '}
              Score: {check.score == null ? '—' : check.score.toFixed(2)}
            </Text>
            {check.reasonCodes.length > 0 && (
              <List size="sm" mt={4}>
                {check.reasonCodes.map((code) => (
                  <List.Item key={code}>{reasonInWords(code)}</List.Item>
                ))}
              </List>
            )}
          </Card>
        ))}
      </SimpleGrid>
      <section aria-labelledby="aml-heading">
        <Text component="h3" id="aml-heading" fw={700}>
          AML findings
        </Text>
        {aml.length ? (
          aml.map((f, i) => <Finding key={i} finding={f} />)
        ) : (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        )}
      </section>
      <section aria-labelledby="network-heading">
        <Text component="h3" id="network-heading" fw={700}>
          Fraud-network findings
        </Text>
        {network.length ? (
          network.map((f, i) => <Finding key={i} finding={f} />)
        ) : (
          <Text size="sm" c="dimmed">
            None.
          </Text>
        )}
      </section>
    </Stack>
  );
}
