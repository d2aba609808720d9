import type { ReactNode } from 'react';
import { Alert, Badge, Group, Loader, Table, Title } from '@mantine/core';
import type { GraphqlError } from '../api';
import { STATUS_COLORS } from '../words';

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Group justify="space-between" mb="md" wrap="wrap">
      <Title order={2}>{title}</Title>
      {children && <Group gap="xs">{children}</Group>}
    </Group>
  );
}

export function Failure({ error }: { error: GraphqlError | Error | null }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" my="sm">
      {error.message}
    </Alert>
  );
}

export function Loading({ when }: { when: boolean }) {
  return when ? <Loader size="sm" role="status" aria-label="Loading" /> : null;
}

export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <>—</>;
  return (
    <Badge color={STATUS_COLORS[value] ?? 'gray'} variant="light" autoContrast>
      {value.replace(/_/g, ' ')}
    </Badge>
  );
}

/** A horizontally scrollable region that keyboard users can reach (axe scrollable-region-focusable). */
export function Scroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="scroll-x" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/**
 * A list screen's table: labelled, scrollable on a phone, one header per column (`false` leaves a
 * column out, e.g. Actions for a member who may not act); the rows are the children.
 */
export function DataTable({
  label,
  miw,
  headers,
  striped,
  highlightOnHover,
  children,
}: {
  label: string;
  miw: number;
  headers: (string | false)[];
  striped?: boolean;
  highlightOnHover?: boolean;
  children: ReactNode;
}) {
  return (
    <Scroll label={label}>
      <Table striped={striped} highlightOnHover={highlightOnHover} miw={miw} aria-label={label}>
        <Table.Thead>
          <Table.Tr>{headers.map((header) => header !== false && <Table.Th key={header}>{header}</Table.Th>)}</Table.Tr>
        </Table.Thead>
        <Table.Tbody>{children}</Table.Tbody>
      </Table>
    </Scroll>
  );
}
