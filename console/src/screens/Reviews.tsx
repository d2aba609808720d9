import { useEffect, useMemo, useState } from 'react';
import { Badge, Group, SegmentedControl, Table, Text } from '@mantine/core';
import { useNow, useQuery } from '../hooks';
import { ReviewQueueDocument, type ReviewRowFragment } from '../graphql/generated';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { reasonInWords, shortId, when } from '../words';
import { Failure, Loading, PageHeader, Status, DataTable } from './shared';

type Filter = 'all' | 'mine' | 'assigned' | 'escalated';

/** Time left on a claim lease, as m:ss. */
export function leaseLeft(expiresAt: string | null | undefined, now: number): string | null {
  if (!expiresAt) return null;
  const left = Math.max(0, Math.round((new Date(expiresAt).getTime() - now) / 1000));
  return `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
}

export function ReviewsScreen() {
  const session = useSession();
  const [filter, setFilter] = useState<Filter>('all');
  const [selected, setSelected] = useState(0);
  const now = useNow();
  const queue = useQuery(
    ReviewQueueDocument,
    { environment: session.environment, holdingMine: filter === 'mine' },
    { poll: 10_000 },
  );
  const me = session.viewer!.member.id;

  const rows = useMemo(() => {
    const nodes = queue.data?.reviews.nodes ?? [];
    if (filter === 'assigned') return nodes.filter((r) => r.assignedTo?.id === me);
    if (filter === 'escalated') return nodes.filter((r) => r.status === 'escalated');
    return nodes;
  }, [queue.data, filter, me]);

  // j / k move through the queue, Enter opens the case.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.target as HTMLElement).closest('input, textarea, select, [contenteditable]')) return;
      if (event.key === 'j') setSelected((s) => Math.min(rows.length - 1, s + 1));
      else if (event.key === 'k') setSelected((s) => Math.max(0, s - 1));
      else if (event.key === 'Enter' && rows[selected] && (event.target as HTMLElement).tagName === 'BODY')
        navigate(`/console/reviews/${rows[selected]!.id}`);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [rows, selected]);

  return (
    <>
      <PageHeader title="Reviews">
        <Loading when={queue.loading && !queue.data} />
        <Text size="sm" c="dimmed">
          {queue.data
            ? `Claims last ${queue.data.reviewPolicy.claimLeaseMinutes} min${queue.data.reviewPolicy.claimRequired ? '; claim before deciding' : ''}`
            : ''}
        </Text>
      </PageHeader>
      <SegmentedControl
        mb="md"
        aria-label="Queue filter"
        value={filter}
        onChange={(v) => {
          setFilter(v as Filter);
          setSelected(0);
        }}
        data={[
          { value: 'all', label: 'All' },
          { value: 'mine', label: 'Mine' },
          { value: 'assigned', label: 'Assigned to me' },
          { value: 'escalated', label: 'Escalated' },
        ]}
      />
      <Failure error={queue.error} />
      <DataTable
        label="Review queue"
        striped
        highlightOnHover
        miw={760}
        headers={['Case', 'Waiting since', 'Status', 'Reasons', 'Claimed by', 'Assigned to', 'Looking now']}
      >
        {rows.map((review: ReviewRowFragment, index) => (
          <Table.Tr
            key={review.id}
            bg={index === selected ? 'var(--mantine-color-indigo-0)' : undefined}
            data-review-id={review.id}
          >
            <Table.Td>
              <Link
                to={`/console/reviews/${review.id}`}
                className="mono"
                aria-label={`Open case ${shortId(review.id)}`}
              >
                {shortId(review.id)}
              </Link>
            </Table.Td>
            <Table.Td>{when(review.createdAt)}</Table.Td>
            <Table.Td>
              <Status value={review.status} />
            </Table.Td>
            <Table.Td>
              <Group gap={4}>
                {(review.verification?.reasonCodes ?? []).map((code) => (
                  <Badge key={code} variant="outline" color="gray" title={reasonInWords(code)}>
                    {code}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>
              {review.claimedBy ? (
                <Text size="sm">
                  {review.claimedBy.id === me ? 'You' : review.claimedBy.name}
                  <Text span c="dimmed" size="xs">
                    {' '}
                    ({leaseLeft(review.claimExpiresAt, now)} left)
                  </Text>
                </Text>
              ) : (
                <Text size="sm" c="dimmed">
                  Unclaimed
                </Text>
              )}
            </Table.Td>
            <Table.Td>
              {review.assignedTo ? (
                review.assignedTo.id === me ? (
                  'You'
                ) : (
                  review.assignedTo.name
                )
              ) : (
                <Text c="dimmed" size="sm">
                  Shared pool
                </Text>
              )}
            </Table.Td>
            <Table.Td>{review.beingReviewedBy.map((p) => p.member.name).join(', ') || '—'}</Table.Td>
          </Table.Tr>
        ))}
        {queue.data && rows.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={7}>
              <Text c="dimmed">No open cases here.</Text>
            </Table.Td>
          </Table.Tr>
        )}
      </DataTable>
      <Text size="xs" c="dimmed" mt="sm">
        Keys: <kbd>j</kbd> / <kbd>k</kbd> move, <kbd>Enter</kbd> opens the highlighted case.
      </Text>
    </>
  );
}
