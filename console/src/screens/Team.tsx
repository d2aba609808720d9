import { useState } from 'react';
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  TextInput,
} from '@mantine/core';
import { gql } from '../api';
import { useQuery } from '../hooks';
import {
  DeactivateMemberDocument,
  InviteMemberDocument,
  TeamDocument,
  UpdateMemberDocument,
  type Environment,
  type TeamQuery,
} from '../graphql/generated';
import { useSession } from '../session';
import { PERMISSIONS, when } from '../words';
import { Failure, Loading, PageHeader, DataTable } from './shared';

type Member = TeamQuery['members']['nodes'][number];

function SeatFields({
  permissions,
  environments,
  onPermissions,
  onEnvironments,
  held,
  heldEnvironments,
}: {
  permissions: string[];
  environments: string[];
  onPermissions: (p: string[]) => void;
  onEnvironments: (e: string[]) => void;
  held: string[];
  heldEnvironments: string[];
}) {
  return (
    <>
      <Checkbox.Group
        label="Permissions"
        description="You can grant only what you hold."
        value={permissions}
        onChange={onPermissions}
      >
        <Stack gap={4} mt={4}>
          {PERMISSIONS.filter((p) => held.includes(p)).map((p) => (
            <Checkbox key={p} value={p} label={p} />
          ))}
        </Stack>
      </Checkbox.Group>
      <Checkbox.Group label="Environments" value={environments} onChange={onEnvironments}>
        <Group mt={4}>
          {heldEnvironments.map((e) => (
            <Checkbox key={e} value={e} label={e === 'live' ? 'Live' : 'Sandbox'} />
          ))}
        </Group>
      </Checkbox.Group>
    </>
  );
}

/** Members, invitations (the one-time password shown once), seats and deactivation. */
export function TeamScreen() {
  const session = useSession();
  const viewer = session.viewer!;
  const manage = session.can('settings.manage');
  const team = useQuery(TeamDocument, {});
  const [inviting, setInviting] = useState(false);
  const [editing, setEditing] = useState<Member | null>(null);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<string[]>([]);
  const [environments, setEnvironments] = useState<string[]>(['sandbox']);
  const [password, setPassword] = useState<{ email: string; password: string } | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await team.reload();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  const invite = () =>
    run(async () => {
      const { inviteMember } = await gql(InviteMemberDocument, {
        email,
        name: name || null,
        permissions,
        environments: environments as Environment[],
      });
      setPassword({ email: inviteMember.member.email, password: inviteMember.password });
      setInviting(false);
      setEmail('');
      setName('');
      setPermissions([]);
    });

  return (
    <>
      <PageHeader title="Team">
        <Loading when={team.loading} />
        {manage && <Button onClick={() => setInviting(true)}>Invite member</Button>}
      </PageHeader>
      <Failure error={error ?? team.error} />
      {password && (
        <Alert
          color="yellow"
          title="One-time password"
          mb="md"
          withCloseButton
          closeButtonLabel="Dismiss password"
          onClose={() => setPassword(null)}
        >
          <Text size="sm">
            {password.email} signs in with this password. It is shown once: copy it now and hand it over privately.
          </Text>
          <Group mt="xs">
            <Code data-testid="one-time-password">{password.password}</Code>
            <CopyButton value={password.password}>
              {({ copied, copy }) => (
                <Button size="xs" variant="default" onClick={copy}>
                  {copied ? 'Copied' : 'Copy'}
                </Button>
              )}
            </CopyButton>
          </Group>
        </Alert>
      )}
      <DataTable
        label="Team members"
        striped
        miw={760}
        headers={['Name', 'Email', 'Permissions', 'Environments', 'Status', manage && 'Actions']}
      >
        {(team.data?.members.nodes ?? []).map((m) => (
          <Table.Tr key={m.id}>
            <Table.Td>{m.name}</Table.Td>
            <Table.Td>{m.email}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {m.permissions.map((p) => (
                  <Badge key={p} size="sm" variant="light" color="gray" autoContrast>
                    {p}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>{m.environments.join(', ')}</Table.Td>
            <Table.Td>{m.deactivatedAt ? `Deactivated ${when(m.deactivatedAt)}` : 'Active'}</Table.Td>
            {manage && (
              <Table.Td>
                {!m.deactivatedAt && m.id !== viewer.member.id && (
                  <Group gap={4} wrap="nowrap">
                    <Button
                      size="xs"
                      variant="default"
                      onClick={() => {
                        setEditing(m);
                        setPermissions(m.permissions);
                        setEnvironments(m.environments);
                      }}
                    >
                      Edit seat
                    </Button>
                    <Button
                      size="xs"
                      color="red"
                      variant="light"
                      loading={busy}
                      onClick={() => void run(async () => void (await gql(DeactivateMemberDocument, { id: m.id })))}
                      aria-label={`Deactivate ${m.name}`}
                    >
                      Deactivate
                    </Button>
                  </Group>
                )}
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
      <Modal opened={inviting} onClose={() => setInviting(false)} title="Invite a member">
        <Stack>
          <TextInput
            label="Member email"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <SeatFields
            permissions={permissions}
            environments={environments}
            onPermissions={setPermissions}
            onEnvironments={setEnvironments}
            held={viewer.member.permissions}
            heldEnvironments={viewer.environments}
          />
          <Group justify="flex-end">
            <Button loading={busy} disabled={!email || environments.length === 0} onClick={() => void invite()}>
              Send invitation
            </Button>
          </Group>
        </Stack>
      </Modal>
      <Modal opened={editing !== null} onClose={() => setEditing(null)} title={`Seat of ${editing?.name ?? ''}`}>
        <Stack>
          <SeatFields
            permissions={permissions}
            environments={environments}
            onPermissions={setPermissions}
            onEnvironments={setEnvironments}
            held={viewer.member.permissions}
            heldEnvironments={viewer.environments}
          />
          <Group justify="flex-end">
            <Button
              loading={busy}
              onClick={() =>
                void run(async () => {
                  await gql(UpdateMemberDocument, {
                    id: editing!.id,
                    permissions,
                    environments: environments as Environment[],
                  });
                  setEditing(null);
                })
              }
            >
              Save seat
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
