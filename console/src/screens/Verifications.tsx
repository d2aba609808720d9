import { useState, type FormEvent } from 'react';
import { Badge, Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { gql } from '../api';
import { useQuery } from '../hooks';
import { VerificationDocument, VerificationsDocument, type VerificationStatus } from '../graphql/generated';
import { Link, navigate } from '../router';
import { useSession } from '../session';
import { shortId, when } from '../words';
import { Failure, Loading, PageHeader, Status, DataTable } from './shared';

const STATUSES: VerificationStatus[] = ['pending', 'processing', 'manual_review', 'approved', 'rejected', 'expired'];

/** Search by reference (the verification id), email, status and creation date; the email stays in memory, never in the URL. */
export function VerificationsScreen() {
  const session = useSession();
  const [reference, setReference] = useState('');
  const [email, setEmail] = useState('');
  const [status, setStatus] = useState<string | null>(null);
  const [from, setFrom] = useState('');
  const [before, setBefore] = useState('');
  const [applied, setApplied] = useState<{
    email?: string;
    status?: VerificationStatus;
    createdFrom?: string;
    createdBefore?: string;
  }>({});
  const [after, setAfter] = useState<string | null>(null);
  const [lookupError, setLookupError] = useState<Error | null>(null);
  const list = useQuery(VerificationsDocument, { filter: { environment: session.environment, ...applied }, after });

  const search = async (event: FormEvent) => {
    event.preventDefault();
    setLookupError(null);
    if (reference.trim()) {
      try {
        const { verification } = await gql(VerificationDocument, { id: reference.trim() });
        navigate(`/console/verifications/${verification.id}`);
      } catch (caught) {
        setLookupError(caught as Error);
      }
      return;
    }
    setAfter(null);
    setApplied({
      ...(email.trim() ? { email: email.trim() } : {}),
      ...(status ? { status: status as VerificationStatus } : {}),
      // Dates are whole UTC days: from the start of the first to the end of the last.
      ...(from ? { createdFrom: new Date(`${from}T00:00:00Z`).toISOString() } : {}),
      ...(before
        ? { createdBefore: new Date(new Date(`${before}T00:00:00Z`).getTime() + 86_400_000).toISOString() }
        : {}),
    });
  };

  const rows = list.data?.verifications.nodes ?? [];
  return (
    <>
      <PageHeader title="Verifications">
        <Loading when={list.loading} />
      </PageHeader>
      <form onSubmit={search} aria-label="Search verifications">
        <Group align="flex-end" mb="md" wrap="wrap">
          <TextInput
            label="Reference"
            placeholder="ver_…"
            value={reference}
            onChange={(e) => setReference(e.currentTarget.value)}
            w={200}
          />
          <TextInput
            label="Email"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            w={220}
            autoComplete="off"
          />
          <Select
            label="Status"
            clearable
            placeholder="Any"
            data={STATUSES.map((s) => ({ value: s, label: s.replace('_', ' ') }))}
            value={status}
            onChange={setStatus}
            w={170}
          />
          <TextInput
            label="Created from"
            type="date"
            value={from}
            onChange={(e) => setFrom(e.currentTarget.value)}
            w={170}
          />
          <TextInput
            label="Created until"
            type="date"
            value={before}
            onChange={(e) => setBefore(e.currentTarget.value)}
            w={170}
          />
          <Button type="submit">Search</Button>
        </Group>
      </form>
      <Failure error={lookupError ?? list.error} />
      <DataTable
        label="Verifications"
        striped
        highlightOnHover
        miw={700}
        headers={['Reference', 'Created', 'Status', 'Score', 'Reasons', 'Flow']}
      >
        {rows.map((v) => (
          <Table.Tr key={v.id}>
            <Table.Td>
              <Link to={`/console/verifications/${v.id}`} className="mono">
                {shortId(v.id)}
              </Link>
            </Table.Td>
            <Table.Td>{when(v.createdAt)}</Table.Td>
            <Table.Td>
              <Status value={v.status} />
            </Table.Td>
            <Table.Td>{v.score == null ? '—' : v.score.toFixed(2)}</Table.Td>
            <Table.Td>
              <Group gap={4}>
                {v.reasonCodes.map((c) => (
                  <Badge key={c} variant="outline" color="gray">
                    {c}
                  </Badge>
                ))}
              </Group>
            </Table.Td>
            <Table.Td>{v.flow?.name ?? '—'}</Table.Td>
          </Table.Tr>
        ))}
        {list.data && rows.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={6}>
              <Text c="dimmed">No verifications match.</Text>
            </Table.Td>
          </Table.Tr>
        )}
      </DataTable>
      {list.data?.verifications.pageInfo.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => setAfter(list.data!.verifications.pageInfo.endCursor)}>
          Next page
        </Button>
      )}
    </>
  );
}
