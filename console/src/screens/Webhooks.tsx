import { useState } from 'react';
import { Alert, Button, Card, Code, Group, MultiSelect, Table, Text, TextInput, Title } from '@mantine/core';
import { gql } from '../api';
import { useQuery } from '../hooks';
import {
  CreateWebhookEndpointDocument,
  RotateWebhookSecretDocument,
  TestWebhookEndpointDocument,
  WebhookEndpointsDocument,
} from '../graphql/generated';
import { useSession } from '../session';
import { when } from '../words';
import { Failure, DataTable } from './shared';

const EVENTS = [
  'verification.approved',
  'verification.rejected',
  'verification.review',
  'verification.completed',
  'verification.expired',
  'verification.data_updated',
  'check.completed',
  'action.pending',
  'action.reviewed',
  'action.on_hold',
];

/** Webhook endpoints of the chosen environment: create (secret shown once), rotate the secret, send a test event. */
export function Webhooks() {
  const session = useSession();
  const manage = session.can('settings.manage');
  const endpoints = useQuery(WebhookEndpointsDocument, { environment: session.environment });
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>(['verification.approved', 'verification.rejected']);
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const run = async (work: () => Promise<void>) => {
    setError(null);
    setNote(null);
    try {
      await work();
      await endpoints.reload();
    } catch (caught) {
      setError(caught as Error);
    }
  };
  return (
    <Card withBorder>
      <Title order={3} size="h4" mb="sm">
        Webhook endpoints ({session.environment})
      </Title>
      <Failure error={error ?? endpoints.error} />
      {secret && (
        <Alert
          color="yellow"
          title="Signing secret, shown once"
          mb="sm"
          withCloseButton
          closeButtonLabel="Dismiss secret"
          onClose={() => setSecret(null)}
        >
          <Code>{secret}</Code>
        </Alert>
      )}
      {note && (
        <Text size="sm" role="status" mb="sm">
          {note}
        </Text>
      )}
      {manage && (
        <Group align="flex-end" mb="sm" wrap="wrap">
          <TextInput
            label="Endpoint URL"
            placeholder="https://example.com/hooks"
            value={url}
            onChange={(e) => setUrl(e.currentTarget.value)}
            w={280}
          />
          <MultiSelect label="Events" data={EVENTS} value={events} onChange={setEvents} w={320} />
          <Button
            disabled={!url || events.length === 0}
            onClick={() =>
              void run(async () => {
                const { createWebhookEndpoint } = await gql(CreateWebhookEndpointDocument, {
                  environment: session.environment,
                  url,
                  events,
                });
                setSecret(createWebhookEndpoint.signingSecret);
                setUrl('');
              })
            }
          >
            Create endpoint
          </Button>
        </Group>
      )}
      <DataTable
        label="Webhook endpoints"
        miw={640}
        headers={['URL', 'Events', 'Status', 'Created', manage && 'Actions']}
      >
        {(endpoints.data?.webhookEndpoints.nodes ?? []).map((e) => (
          <Table.Tr key={e.id}>
            <Table.Td className="mono">{e.url}</Table.Td>
            <Table.Td>{e.events.length} events</Table.Td>
            <Table.Td>{e.status}</Table.Td>
            <Table.Td>{when(e.createdAt)}</Table.Td>
            {manage && (
              <Table.Td>
                <Group gap={4} wrap="nowrap">
                  <Button
                    size="xs"
                    variant="default"
                    onClick={() =>
                      void run(async () =>
                        setSecret(
                          (await gql(RotateWebhookSecretDocument, { id: e.id })).rotateWebhookSecret.signingSecret,
                        ),
                      )
                    }
                  >
                    Rotate secret
                  </Button>
                  <Button
                    size="xs"
                    variant="light"
                    onClick={() =>
                      void run(async () => {
                        const { testWebhookEndpoint } = await gql(TestWebhookEndpointDocument, { id: e.id });
                        setNote(`Test ${testWebhookEndpoint.event} queued; see Logs, Delivery log.`);
                      })
                    }
                  >
                    Send test
                  </Button>
                </Group>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
      {endpoints.data?.webhookEndpoints.nodes.length === 0 && <Text c="dimmed">No endpoints.</Text>}
    </Card>
  );
}
