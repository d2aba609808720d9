import { useState } from 'react';
import { Button, Code, Group, Modal, Select, Table, Tabs, Text, TextInput } from '@mantine/core';
import { gql } from '../api';
import { useQuery } from '../hooks';
import {
  DeliveryBodyDocument,
  DeliveryLogsDocument,
  ReplayDeliveryDocument,
  RequestLogsDocument,
  type DeliveryBodyQuery,
} from '../graphql/generated';
import { useSession } from '../session';
import { when } from '../words';
import { Failure, Loading, PageHeader, Status, DataTable } from './shared';

function RequestLog() {
  const session = useSession();
  const [statusClass, setStatusClass] = useState<string | null>(null);
  const [route, setRoute] = useState('');
  const [applied, setApplied] = useState<{ statusClass?: string; route?: string }>({});
  const logs = useQuery(RequestLogsDocument, { filter: { environment: session.environment, ...applied } });
  return (
    <>
      <Group align="flex-end" my="md" wrap="wrap">
        <Select
          label="Status"
          clearable
          placeholder="Any"
          data={['2xx', '3xx', '4xx', '5xx']}
          value={statusClass}
          onChange={setStatusClass}
          w={120}
        />
        <TextInput
          label="Route starts with"
          placeholder="/v1/verifications"
          value={route}
          onChange={(e) => setRoute(e.currentTarget.value)}
          w={220}
        />
        <Button onClick={() => setApplied({ ...(statusClass ? { statusClass } : {}), ...(route ? { route } : {}) })}>
          Filter
        </Button>
        <Loading when={logs.loading} />
      </Group>
      <Failure error={logs.error} />
      <DataTable
        label="Request log"
        striped
        miw={760}
        headers={['When', 'Key', 'Request', 'Status', 'Duration', 'Request id']}
      >
        {(logs.data?.requestLogs.nodes ?? []).map((l) => (
          <Table.Tr key={l.id}>
            <Table.Td>{when(l.createdAt)}</Table.Td>
            <Table.Td>{l.keyName}</Table.Td>
            <Table.Td className="mono">
              {l.method} {l.route}
            </Table.Td>
            <Table.Td>{l.status}</Table.Td>
            <Table.Td>{Math.round(l.durationMs)} ms</Table.Td>
            <Table.Td className="mono">{l.requestId}</Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {logs.data?.requestLogs.nodes.length === 0 && <Text c="dimmed">No calls.</Text>}
    </>
  );
}

function DeliveryLog() {
  const session = useSession();
  const [status, setStatus] = useState<string | null>(null);
  const [event, setEvent] = useState('');
  const [applied, setApplied] = useState<{ status?: string; event?: string }>({});
  const logs = useQuery(DeliveryLogsDocument, applied);
  const [body, setBody] = useState<DeliveryBodyQuery['deliveryLog'] | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const act = async (work: () => Promise<void>) => {
    setError(null);
    try {
      await work();
    } catch (caught) {
      setError(caught as Error);
    }
  };
  return (
    <>
      <Group align="flex-end" my="md" wrap="wrap">
        <Select
          label="Status"
          clearable
          placeholder="Any"
          data={['pending', 'delivered', 'failed']}
          value={status}
          onChange={setStatus}
          w={140}
        />
        <TextInput
          label="Event"
          placeholder="verification.approved"
          value={event}
          onChange={(e) => setEvent(e.currentTarget.value)}
          w={220}
        />
        <Button onClick={() => setApplied({ ...(status ? { status } : {}), ...(event ? { event } : {}) })}>
          Filter
        </Button>
        <Loading when={logs.loading} />
      </Group>
      <Failure error={error ?? logs.error} />
      {note && (
        <Text size="sm" role="status">
          {note}
        </Text>
      )}
      <DataTable
        label="Delivery log"
        striped
        miw={760}
        headers={['When', 'Event', 'Status', 'Attempts', 'Response', 'Actions']}
      >
        {(logs.data?.deliveryLogs.nodes ?? []).map((d) => (
          <Table.Tr key={d.id}>
            <Table.Td>{when(d.createdAt)}</Table.Td>
            <Table.Td className="mono">{d.event}</Table.Td>
            <Table.Td>
              <Status value={d.status} />
            </Table.Td>
            <Table.Td>{d.attemptCount}</Table.Td>
            <Table.Td>{d.responseCode ?? d.error ?? '—'}</Table.Td>
            <Table.Td>
              <Group gap={4} wrap="nowrap">
                {session.can('verifications.reveal') && (
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() =>
                      void act(async () => setBody((await gql(DeliveryBodyDocument, { id: d.id })).deliveryLog))
                    }
                  >
                    Show body
                  </Button>
                )}
                <Button
                  size="xs"
                  variant="light"
                  onClick={() =>
                    void act(async () => {
                      await gql(ReplayDeliveryDocument, { id: d.id });
                      setNote('Replay scheduled on the normal retry ladder.');
                      await logs.reload();
                    })
                  }
                >
                  Replay
                </Button>
              </Group>
            </Table.Td>
          </Table.Tr>
        ))}
      </DataTable>
      {logs.data?.deliveryLogs.nodes.length === 0 && <Text c="dimmed">No deliveries.</Text>}
      <Modal opened={body !== null} onClose={() => setBody(null)} title="Delivery body" size="lg">
        <Text size="xs" c="dimmed" mb="xs">
          Viewing the body is recorded in the audit trail.
        </Text>
        <Code block>{JSON.stringify(body?.body ?? null, null, 2)}</Code>
      </Modal>
    </>
  );
}

export function LogsScreen() {
  return (
    <>
      <PageHeader title="Logs" />
      <Tabs defaultValue="requests" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="requests">Request log</Tabs.Tab>
          <Tabs.Tab value="deliveries">Delivery log</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="requests">
          <RequestLog />
        </Tabs.Panel>
        <Tabs.Panel value="deliveries">
          <DeliveryLog />
        </Tabs.Panel>
      </Tabs>
    </>
  );
}
