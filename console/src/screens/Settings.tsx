import { useEffect, useState } from 'react';
import {
  Alert,
  Button,
  Card,
  Code,
  Group,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { gql, GraphqlError } from '../api';
import { useQuery } from '../hooks';
import {
  CreateApiKeyDocument,
  RevokeApiKeyDocument,
  SettingsDocument,
  UpdateSettingsDocument,
  type SettingsQuery,
  type UpdateSettingsInput,
} from '../graphql/generated';
import { useSession } from '../session';
import { when } from '../words';
import { Failure, Loading, PageHeader, DataTable } from './shared';
import { Flows } from './Flows';
import { Webhooks } from './Webhooks';

type Account = SettingsQuery['settings'];

/** Review policy, repeat control, retention, flows, API keys and webhook endpoints. Changing them needs settings.manage. */
export function SettingsScreen() {
  const session = useSession();
  const manage = session.can('settings.manage');
  const data = useQuery(SettingsDocument, { environment: session.environment });
  const [draft, setDraft] = useState<Account | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [keyName, setKeyName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => setDraft(data.data?.settings ?? null), [data.data]);

  const run = async (label: string, work: () => Promise<void>) => {
    setError(null);
    setSaved(null);
    try {
      await work();
      setSaved(label);
      await data.reload();
    } catch (caught) {
      if (caught instanceof GraphqlError && caught.code === 'STALE_VERSION')
        setError(
          new Error(
            'Someone else changed the settings after you opened them; nothing was saved. The current values are shown again: make your change once more.',
          ),
        );
      else setError(caught as Error);
    }
  };

  const save = () => {
    if (!draft) return;
    const input: UpdateSettingsInput = {
      version: draft.version,
      retentionDays: draft.retentionDays,
      reverificationPeriodDays: draft.reverificationPeriodDays,
      repeatVerification: { enabled: draft.repeatVerification.enabled, scope: draft.repeatVerification.scope },
      reviewPolicy: { ...draft.reviewPolicy },
    };
    void run('Settings saved.', async () => void (await gql(UpdateSettingsDocument, { input })));
  };

  const d = draft;
  return (
    <Stack>
      <PageHeader title="Settings">
        <Loading when={data.loading} />
      </PageHeader>
      <Failure error={error ?? data.error} />
      {saved && (
        <Text role="status" size="sm">
          {saved}
        </Text>
      )}
      {d && (
        <SimpleGrid cols={{ base: 1, md: 3 }}>
          <Card withBorder>
            <Title order={3} size="h4" mb="sm">
              Review policy
            </Title>
            <Stack gap="xs">
              <Switch
                label="Claim before deciding"
                checked={d.reviewPolicy.claimRequired}
                disabled={!manage}
                onChange={(e) =>
                  setDraft({ ...d, reviewPolicy: { ...d.reviewPolicy, claimRequired: e.currentTarget.checked } })
                }
              />
              <NumberInput
                label="Claim lease (minutes)"
                min={1}
                value={d.reviewPolicy.claimLeaseMinutes}
                disabled={!manage}
                onChange={(v) => setDraft({ ...d, reviewPolicy: { ...d.reviewPolicy, claimLeaseMinutes: Number(v) } })}
              />
              <NumberInput
                label="Presence lasts (ms)"
                min={1000}
                step={1000}
                value={d.reviewPolicy.presenceTtlMs}
                disabled={!manage}
                onChange={(v) => setDraft({ ...d, reviewPolicy: { ...d.reviewPolicy, presenceTtlMs: Number(v) } })}
              />
            </Stack>
          </Card>
          <Card withBorder>
            <Title order={3} size="h4" mb="sm">
              Repeat control
            </Title>
            <Stack gap="xs">
              <Switch
                label="Refuse repeat verifications"
                checked={d.repeatVerification.enabled}
                disabled={!manage}
                onChange={(e) =>
                  setDraft({ ...d, repeatVerification: { ...d.repeatVerification, enabled: e.currentTarget.checked } })
                }
              />
              <Select
                label="Scope"
                disabled={!manage}
                value={d.repeatVerification.scope}
                onChange={(v) =>
                  v &&
                  setDraft({ ...d, repeatVerification: { ...d.repeatVerification, scope: v as 'any' | 'same_flow' } })
                }
                data={[
                  { value: 'same_flow', label: 'Same flow' },
                  { value: 'any', label: 'Any flow' },
                ]}
              />
              <NumberInput
                label="Re-verify after (days, empty: never)"
                min={1}
                value={d.reverificationPeriodDays ?? ''}
                disabled={!manage}
                onChange={(v) => setDraft({ ...d, reverificationPeriodDays: v === '' ? null : Number(v) })}
              />
            </Stack>
          </Card>
          <Card withBorder>
            <Title order={3} size="h4" mb="sm">
              Retention
            </Title>
            <NumberInput
              label="Keep identity and images (days)"
              min={1}
              value={d.retentionDays}
              disabled={!manage}
              onChange={(v) => setDraft({ ...d, retentionDays: Number(v) })}
            />
            {manage && (
              <Button mt="md" onClick={save}>
                Save settings
              </Button>
            )}
          </Card>
        </SimpleGrid>
      )}
      <Flows flows={data.data?.flows.nodes ?? []} reload={data.reload} />
      <Card withBorder>
        <Title order={3} size="h4" mb="sm">
          API keys ({session.environment})
        </Title>
        {secret && (
          <Alert
            color="yellow"
            title="Secret key, shown once"
            mb="sm"
            withCloseButton
            closeButtonLabel="Dismiss secret"
            onClose={() => setSecret(null)}
          >
            <Code>{secret}</Code>
          </Alert>
        )}
        {manage && (
          <Group align="flex-end" mb="sm">
            <TextInput label="Key name" value={keyName} onChange={(e) => setKeyName(e.currentTarget.value)} />
            <Button
              disabled={!keyName}
              onClick={() =>
                void run('Key created.', async () => {
                  const { createApiKey } = await gql(CreateApiKeyDocument, {
                    input: { name: keyName, environment: session.environment },
                  });
                  setSecret(createApiKey.secretKey);
                  setKeyName('');
                })
              }
            >
              Create key
            </Button>
          </Group>
        )}
        <DataTable
          label="API keys"
          miw={600}
          headers={['Name', 'Prefix', 'Access', 'Last used', 'Status', manage && 'Actions']}
        >
          {(data.data?.apiKeys.nodes ?? []).map((k) => (
            <Table.Tr key={k.id}>
              <Table.Td>{k.name}</Table.Td>
              <Table.Td className="mono">{k.keyPrefix}…</Table.Td>
              <Table.Td>{k.access.replace('_', ' ')}</Table.Td>
              <Table.Td>{when(k.lastUsedAt)}</Table.Td>
              <Table.Td>{k.status}</Table.Td>
              {manage && (
                <Table.Td>
                  {!k.revokedAt && (
                    <Button
                      size="xs"
                      color="red"
                      variant="light"
                      aria-label={`Revoke ${k.name}`}
                      onClick={() =>
                        void run('Key revoked.', async () => void (await gql(RevokeApiKeyDocument, { id: k.id })))
                      }
                    >
                      Revoke
                    </Button>
                  )}
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </DataTable>
      </Card>
      <Webhooks />
    </Stack>
  );
}
