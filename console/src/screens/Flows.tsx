import { useState } from 'react';
import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Card,
  Checkbox,
  Group,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { gql, GraphqlError } from '../api';
import {
  ArchiveFlowDocument,
  CreateFlowDocument,
  PreviewFlowDocument,
  UpdateFlowDocument,
  type ConsoleFlowFragment,
} from '../graphql/generated';
import { useSession } from '../session';
import { Failure, DataTable } from './shared';

const CHECKS = [
  { value: 'document', label: 'Document' },
  { value: 'liveness', label: 'Liveness' },
  { value: 'face_match', label: 'Face match' },
  { value: 'age', label: 'Age' },
  { value: 'aml', label: 'AML screening' },
  { value: 'email', label: 'Email' },
];
const DOCUMENTS = [
  { value: 'passport', label: 'Passport' },
  { value: 'id_card', label: 'ID card' },
  { value: 'driving_licence', label: 'Driving licence' },
  { value: 'residence_permit', label: 'Residence permit' },
];
const checkLabel = (type: string) => CHECKS.find((c) => c.value === type)?.label ?? type;

interface Draft {
  id: string | null;
  version: number | null;
  name: string;
  steps: { type: string; required: boolean }[];
  acceptedDocumentTypes: string[];
  brandName: string;
  accentColor: string;
  logoUrl: string;
  supportUrl: string;
  privacyUrl: string;
}

const EMPTY: Draft = {
  id: null,
  version: null,
  name: '',
  steps: [],
  acceptedDocumentTypes: [],
  brandName: '',
  accentColor: '',
  logoUrl: '',
  supportUrl: '',
  privacyUrl: '',
};

const draftOf = (f: ConsoleFlowFragment): Draft => ({
  id: f.id,
  version: f.version,
  name: f.name,
  steps: f.steps.map((s) => ({ type: s.type, required: s.required })),
  acceptedDocumentTypes: [...f.acceptedDocumentTypes],
  brandName: f.brandName ?? '',
  accentColor: f.accentColor ?? '',
  logoUrl: f.logoUrl ?? '',
  supportUrl: f.supportUrl ?? '',
  privacyUrl: f.privacyUrl ?? '',
});

/** Words for the codes a flow's save, archive or preview answers. */
function explain(caught: unknown): Error {
  if (caught instanceof GraphqlError) {
    if (caught.code === 'STALE_VERSION')
      return new Error(
        'Someone else changed this flow after you opened it; nothing was saved. Close the editor and open the flow again to see their change, then make yours once more.',
      );
    if (caught.code === 'FLOW_EMPTY')
      return new Error('This flow has no steps yet, so there is nothing to preview. Add a step and save it first.');
    if (caught.code === 'FLOW_ARCHIVED')
      return new Error('This flow is archived: it starts no verification, not even a preview.');
  }
  return caught as Error;
}

/** The flows of the environment; members holding settings.manage create, edit, archive and preview them. */
export function Flows({ flows, reload }: { flows: ConsoleFlowFragment[]; reload: () => Promise<unknown> }) {
  const session = useSession();
  const manage = session.can('settings.manage');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [previewUrl, setPreviewUrl] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const run = async (label: string, work: () => Promise<void>) => {
    setError(null);
    setStatus(null);
    setBusy(true);
    try {
      await work();
      setStatus(label);
      await reload();
    } catch (caught) {
      setError(explain(caught));
    } finally {
      setBusy(false);
    }
  };

  const open = (next: Draft) => {
    setDraft(next);
    setError(null);
    setStatus(null);
    setPreviewUrl(null);
  };

  const preview = (id: string) =>
    void run('Preview opened in a new tab.', async () => {
      setPreviewUrl(null);
      const { previewFlow } = await gql(PreviewFlowDocument, { id });
      setPreviewUrl(previewFlow.url);
      window.open(previewFlow.url, '_blank', 'noopener,noreferrer');
    });

  const save = (d: Draft) =>
    void run('Flow saved.', async () => {
      const fields = {
        name: d.name.trim(),
        steps: d.steps.map((s) => ({ type: s.type, required: s.required })),
        acceptedDocumentTypes: d.acceptedDocumentTypes,
        brandName: d.brandName.trim() || null,
        accentColor: d.accentColor.trim() || null,
        logoUrl: d.logoUrl.trim() || null,
        supportUrl: d.supportUrl.trim() || null,
        privacyUrl: d.privacyUrl.trim() || null,
      };
      const saved = d.id
        ? (await gql(UpdateFlowDocument, { id: d.id, input: { ...fields, version: d.version } })).updateFlow
        : (await gql(CreateFlowDocument, { environment: session.environment, input: fields })).createFlow;
      setDraft(draftOf(saved));
    });

  const archive = (d: Draft) =>
    void run('Flow archived.', async () => {
      await gql(ArchiveFlowDocument, { id: d.id!, version: d.version });
      setDraft(null);
    });

  const d = draft;
  const setSteps = (steps: Draft['steps']) => d && setDraft({ ...d, steps });
  const move = (from: number, to: number) => {
    if (!d || to < 0 || to >= d.steps.length) return;
    const steps = [...d.steps];
    const [step] = steps.splice(from, 1);
    steps.splice(to, 0, step!);
    setSteps(steps);
  };

  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={3} size="h4">
          Flows
        </Title>
        {manage && !d && <Button onClick={() => open(EMPTY)}>New flow</Button>}
      </Group>
      <Failure error={error} />
      {status && (
        <Text role="status" size="sm" mb="sm">
          {status}{' '}
          {previewUrl && (
            <Anchor href={previewUrl} target="_blank" rel="noopener noreferrer">
              Open the preview again
            </Anchor>
          )}
        </Text>
      )}
      {manage && d && (
        <Card withBorder mb="md" component="section" aria-label="Flow editor">
          <Title order={4} size="h5" mb="sm">
            {d.id ? `Edit flow: ${d.name || 'unnamed'}` : 'New flow'}
          </Title>
          <Stack gap="sm">
            <TextInput
              label="Flow name"
              required
              value={d.name}
              onChange={(e) => setDraft({ ...d, name: e.currentTarget.value })}
            />
            <fieldset className="flow-fieldset">
              <legend>Steps, in order (none: a draft that cannot be previewed yet)</legend>
              <Stack gap="xs">
                {d.steps.length === 0 && (
                  <Text size="sm" c="dimmed">
                    No steps yet.
                  </Text>
                )}
                {d.steps.map((step, i) => (
                  <Group key={i} align="flex-end" gap="xs" wrap="wrap">
                    <Select
                      label={`Step ${i + 1} check`}
                      data={CHECKS}
                      value={step.type}
                      allowDeselect={false}
                      onChange={(v) => v && setSteps(d.steps.map((s, j) => (j === i ? { ...s, type: v } : s)))}
                    />
                    <Checkbox
                      label={`Step ${i + 1} required`}
                      checked={step.required}
                      mb={8}
                      onChange={(e) => {
                        const required = e.currentTarget.checked;
                        setSteps(d.steps.map((s, j) => (j === i ? { ...s, required } : s)));
                      }}
                    />
                    <ActionIcon
                      variant="default"
                      size="lg"
                      aria-label={`Move step ${i + 1} (${checkLabel(step.type)}) up`}
                      disabled={i === 0}
                      onClick={() => move(i, i - 1)}
                    >
                      ↑
                    </ActionIcon>
                    <ActionIcon
                      variant="default"
                      size="lg"
                      aria-label={`Move step ${i + 1} (${checkLabel(step.type)}) down`}
                      disabled={i === d.steps.length - 1}
                      onClick={() => move(i, i + 1)}
                    >
                      ↓
                    </ActionIcon>
                    <Button
                      variant="light"
                      color="red"
                      aria-label={`Remove step ${i + 1} (${checkLabel(step.type)})`}
                      onClick={() => setSteps(d.steps.filter((_, j) => j !== i))}
                    >
                      Remove
                    </Button>
                  </Group>
                ))}
                <Group>
                  <Button
                    variant="default"
                    onClick={() => {
                      const unused = CHECKS.find((c) => !d.steps.some((s) => s.type === c.value))?.value ?? 'document';
                      setSteps([...d.steps, { type: unused, required: true }]);
                    }}
                  >
                    Add step
                  </Button>
                </Group>
              </Stack>
            </fieldset>
            <Checkbox.Group
              label="Accepted document types (none ticked: any)"
              value={d.acceptedDocumentTypes}
              onChange={(acceptedDocumentTypes) => setDraft({ ...d, acceptedDocumentTypes })}
            >
              <Group mt="xs">
                {DOCUMENTS.map((doc) => (
                  <Checkbox key={doc.value} value={doc.value} label={doc.label} />
                ))}
              </Group>
            </Checkbox.Group>
            <SimpleGrid cols={{ base: 1, sm: 2 }}>
              <TextInput
                label="Brand name"
                value={d.brandName}
                onChange={(e) => setDraft({ ...d, brandName: e.currentTarget.value })}
              />
              <TextInput
                label="Accent colour (#RRGGBB)"
                placeholder="#1c7ed6"
                value={d.accentColor}
                onChange={(e) => setDraft({ ...d, accentColor: e.currentTarget.value })}
              />
              <TextInput
                label="Logo URL"
                type="url"
                value={d.logoUrl}
                onChange={(e) => setDraft({ ...d, logoUrl: e.currentTarget.value })}
              />
              <TextInput
                label="Support URL"
                type="url"
                value={d.supportUrl}
                onChange={(e) => setDraft({ ...d, supportUrl: e.currentTarget.value })}
              />
              <TextInput
                label="Privacy notice URL (https)"
                type="url"
                value={d.privacyUrl}
                onChange={(e) => setDraft({ ...d, privacyUrl: e.currentTarget.value })}
              />
            </SimpleGrid>
            <Group>
              <Button disabled={busy || !d.name.trim()} onClick={() => save(d)}>
                Save flow
              </Button>
              {d.id && (
                <Button variant="default" disabled={busy} onClick={() => preview(d.id!)}>
                  Preview
                </Button>
              )}
              {d.id && (
                <Button variant="light" color="red" disabled={busy} onClick={() => archive(d)}>
                  Archive flow
                </Button>
              )}
              <Button variant="subtle" onClick={() => setDraft(null)}>
                Close editor
              </Button>
            </Group>
            {d.id && (
              <Text size="xs" c="dimmed">
                Preview opens the saved flow on the hosted page, as a short-lived sandbox session, in a new tab.
              </Text>
            )}
          </Stack>
        </Card>
      )}
      <DataTable label="Flows" miw={600} headers={['Name', 'Steps', 'Status', manage && 'Actions']}>
        {flows.map((f) => (
          <Table.Tr key={f.id}>
            <Table.Td>
              {f.name} {f.isDefault && <Badge size="xs">default</Badge>}{' '}
              {f.isPreset && (
                <Badge size="xs" color="gray">
                  preset
                </Badge>
              )}
            </Table.Td>
            <Table.Td>
              {f.steps.length ? f.steps.map((s) => s.type).join(' → ') : <Text c="dimmed">no steps (draft)</Text>}
            </Table.Td>
            <Table.Td>{f.status}</Table.Td>
            {manage && (
              <Table.Td>
                <Group gap="xs" wrap="nowrap">
                  {!f.isPreset && f.status === 'active' && (
                    <Button size="xs" variant="light" aria-label={`Edit ${f.name}`} onClick={() => open(draftOf(f))}>
                      Edit
                    </Button>
                  )}
                  {f.status === 'active' && (
                    <Button
                      size="xs"
                      variant="default"
                      aria-label={`Preview ${f.name}`}
                      disabled={busy}
                      onClick={() => preview(f.id)}
                    >
                      Preview
                    </Button>
                  )}
                </Group>
              </Table.Td>
            )}
          </Table.Tr>
        ))}
      </DataTable>
    </Card>
  );
}
