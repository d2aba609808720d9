import { Badge, Text, Timeline as MantineTimeline } from '@mantine/core';
import type { CaseTimelineQuery } from '../../graphql/generated';
import { actionInWords, when } from '../../words';

interface Entry {
  id: string;
  at: string;
  kind: 'event' | 'activity' | 'audit';
  title: string;
  detail?: string;
}

/** Events, team activity and audit rows of one case, newest first. */
export function Timeline({ data, names }: { data: CaseTimelineQuery | null; names: Map<string, string> }) {
  if (!data) return null;
  const who = (id: string | null | undefined) => (id ? (names.get(id) ?? 'A team member') : 'The service');
  const entries: Entry[] = [
    ...data.verificationEvents.map((e): Entry => ({ id: e.id, at: e.createdAt, kind: 'event', title: e.type })),
    ...data.activity.nodes.map((a): Entry => ({
      id: a.id,
      at: a.createdAt,
      kind: 'activity',
      title: `${who(a.memberId)}: ${a.action.replace(/[._]/g, ' ')}`,
      detail: `through ${a.surface}`,
    })),
    ...data.auditEvents.nodes.map((a): Entry => ({
      id: a.id,
      at: a.createdAt,
      kind: 'audit',
      title: `${who(a.memberId)}: ${actionInWords(a.action)}`,
      detail: a.fieldNames?.length
        ? `fields: ${a.fieldNames.join(', ')}`
        : a.imageCount != null
          ? `${a.imageCount} images`
          : undefined,
    })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return (
    <section aria-labelledby="timeline-heading">
      <Text component="h3" id="timeline-heading" fw={700} mb="xs">
        Timeline
      </Text>
      <MantineTimeline bulletSize={14} lineWidth={2} aria-label="Case timeline">
        {entries.map((entry) => (
          <MantineTimeline.Item key={entry.id} title={entry.title} data-kind={entry.kind}>
            <Text component="div" size="xs" c="dimmed">
              <Badge
                size="xs"
                variant="outline"
                color={entry.kind === 'audit' ? 'orange' : entry.kind === 'event' ? 'blue' : 'gray'}
                autoContrast
              >
                {entry.kind}
              </Badge>{' '}
              {when(entry.at)}
              {entry.detail ? ` · ${entry.detail}` : ''}
            </Text>
          </MantineTimeline.Item>
        ))}
      </MantineTimeline>
      {entries.length === 0 && <Text c="dimmed">Nothing yet.</Text>}
    </section>
  );
}
