import { useState, type FormEvent } from 'react';
import { Button, Group, Select, Table, Text, TextInput } from '@mantine/core';
import { useQuery } from '../hooks';
import { AuditDocument, CaseMembersDocument } from '../graphql/generated';
import { Link } from '../router';
import { actionInWords, shortId, when } from '../words';
import { Failure, Loading, PageHeader, DataTable } from './shared';

/** The audit trail: who revealed or exported what and when; filter by case (verification) and member. */
export function AuditScreen() {
  const [caseId, setCaseId] = useState('');
  const [memberId, setMemberId] = useState<string | null>(null);
  const [applied, setApplied] = useState<{ verificationId?: string; memberId?: string }>({});
  const [after, setAfter] = useState<string | null>(null);
  const audit = useQuery(AuditDocument, { ...applied, after });
  const members = useQuery(CaseMembersDocument, {});
  const names = new Map((members.data?.members.nodes ?? []).map((m) => [m.id, m.name]));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setAfter(null);
    setApplied({ ...(caseId.trim() ? { verificationId: caseId.trim() } : {}), ...(memberId ? { memberId } : {}) });
  };
  return (
    <>
      <PageHeader title="Audit">
        <Loading when={audit.loading} />
      </PageHeader>
      <form onSubmit={apply} aria-label="Filter the audit trail">
        <Group align="flex-end" mb="md" wrap="wrap">
          <TextInput
            label="Case (verification id)"
            value={caseId}
            onChange={(e) => setCaseId(e.currentTarget.value)}
            w={240}
          />
          <Select
            label="Member"
            clearable
            placeholder="Anyone"
            data={(members.data?.members.nodes ?? []).map((m) => ({ value: m.id, label: m.name }))}
            value={memberId}
            onChange={setMemberId}
            w={200}
          />
          <Button type="submit">Filter</Button>
        </Group>
      </form>
      <Failure error={audit.error} />
      <DataTable
        label="Audit trail"
        striped
        miw={700}
        headers={['When', 'Member', 'Action', 'Case', 'What', 'Environment']}
      >
        {(audit.data?.auditEvents.nodes ?? []).map((a) => (
          <Table.Tr key={a.id}>
            <Table.Td>{when(a.createdAt)}</Table.Td>
            <Table.Td>{names.get(a.memberId) ?? shortId(a.memberId)}</Table.Td>
            <Table.Td>{actionInWords(a.action)}</Table.Td>
            <Table.Td>
              {a.verificationId ? (
                <Link to={`/console/verifications/${a.verificationId}`} className="mono">
                  {shortId(a.verificationId)}
                </Link>
              ) : (
                '—'
              )}
            </Table.Td>
            <Table.Td>
              {a.fieldNames?.join(', ') ??
                (a.imageCount != null ? `${a.imageCount} images` : a.rowCount != null ? `${a.rowCount} rows` : '—')}
            </Table.Td>
            <Table.Td>{a.environment}</Table.Td>
          </Table.Tr>
        ))}
        {audit.data && audit.data.auditEvents.nodes.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={6}>
              <Text c="dimmed">Nothing recorded.</Text>
            </Table.Td>
          </Table.Tr>
        )}
      </DataTable>
      {audit.data?.auditEvents.pageInfo.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => setAfter(audit.data!.auditEvents.pageInfo.endCursor)}>
          Next page
        </Button>
      )}
    </>
  );
}
