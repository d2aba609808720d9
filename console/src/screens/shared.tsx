import type { ReactNode } from 'react';
import { Alert, Badge, Group, Loader, Title } from '@mantine/core';
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
  return when ? <Loader size="sm" aria-label="Loading" /> : null;
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
