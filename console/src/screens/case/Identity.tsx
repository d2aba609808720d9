import { useState } from 'react';
import { Alert, Button, Group, Table, Text, TextInput } from '@mantine/core';
import { gql, GraphqlError } from '../../api';
import { EditIdentityDocument, RevealIdentityDocument, type RevealIdentityQuery } from '../../graphql/generated';
import { Failure } from '../shared';

type Revealed = RevealIdentityQuery['revealIdentity'];

const label = (field: string) => field.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase());

/**
 * The fields read off the document, shown only after "Reveal identity" (audited) and kept in
 * this component's state alone: leaving the case page drops them.
 */
export function Identity({
  verificationId,
  canReveal,
  onChanged,
  revealRef,
}: {
  verificationId: string;
  canReveal: boolean;
  onChanged: () => void;
  revealRef?: { current: (() => void) | null };
}) {
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [draft, setDraft] = useState<Record<string, string> | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const reveal = async () => {
    setBusy(true);
    try {
      setRevealed((await gql(RevealIdentityDocument, { verificationId })).revealIdentity);
      setError(null);
      onChanged();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };
  if (revealRef) revealRef.current = canReveal ? () => void reveal() : null;

  const save = async () => {
    if (!revealed || !draft) return;
    const fields = revealed.fields ?? {};
    const changed: Record<string, string | null> = {};
    for (const [name, value] of Object.entries(draft))
      if (value !== String(fields[name] ?? '')) changed[name] = value === '' ? null : value;
    if (Object.keys(changed).length === 0) return setDraft(null);
    setBusy(true);
    setConflict(null);
    try {
      await gql(EditIdentityDocument, { verificationId, fields: changed, version: revealed.version });
      setDraft(null);
      await reveal();
    } catch (caught) {
      if (caught instanceof GraphqlError && caught.code === 'STALE_VERSION') {
        const current = caught.detail?.current_version;
        setConflict(
          `Someone else changed this identity after you read it (you edited version ${revealed.version}${current ? `, it is now version ${String(current)}` : ''}). Nothing was saved. Reveal again to read the current values, then make your change again.`,
        );
      } else setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };

  if (!canReveal) return null;
  const fields = revealed?.fields ?? null;
  return (
    <section aria-labelledby="identity-heading">
      <Group justify="space-between" mb="xs">
        <Text component="h3" id="identity-heading" fw={700}>
          Fields read
        </Text>
        <Group gap="xs">
          {revealed && fields && !draft && (
            <Button
              size="xs"
              variant="default"
              onClick={() => setDraft(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v ?? '')])))}
            >
              Edit identity
            </Button>
          )}
          <Button size="xs" color="orange" loading={busy && !draft} onClick={() => void reveal()}>
            Reveal identity
          </Button>
        </Group>
      </Group>
      <Failure error={error} />
      {conflict && (
        <Alert color="orange" title="Version conflict" role="alert" mb="sm">
          {conflict}
        </Alert>
      )}
      {!revealed && (
        <Text c="dimmed" size="sm">
          Hidden. Revealing is recorded in the audit trail and shown in the timeline.
        </Text>
      )}
      {revealed && !fields && <Text c="dimmed">Nothing is held for this verification.</Text>}
      {fields && (
        <Table withRowBorders={false} aria-label="Identity fields" data-version={revealed!.version}>
          <Table.Tbody>
            {Object.entries(draft ?? fields).map(([name, value]) => (
              <Table.Tr key={name}>
                <Table.Th w="40%">{label(name)}</Table.Th>
                <Table.Td>
                  {draft ? (
                    <TextInput
                      aria-label={label(name)}
                      size="xs"
                      value={draft[name] ?? ''}
                      onChange={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
                    />
                  ) : (
                    String(value ?? '—')
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {draft && (
        <Group mt="xs" gap="xs">
          <Button size="xs" loading={busy} onClick={() => void save()}>
            Save identity
          </Button>
          <Button size="xs" variant="default" onClick={() => setDraft(null)}>
            Cancel
          </Button>
          <Text size="xs" c="dimmed">
            Saving makes version {revealed!.version + 1}; status, verdict and score do not change.
          </Text>
        </Group>
      )}
    </section>
  );
}
