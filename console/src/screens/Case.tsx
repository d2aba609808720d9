import { useEffect, useMemo, useRef, useState } from 'react';
import { Alert, Badge, Button, Card, Grid, Group, Modal, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { gql, GraphqlError } from '../api';
import { useNow, useQuery } from '../hooks';
import {
  AssignReviewDocument,
  CaseMembersDocument,
  CaseTimelineDocument,
  ClaimReviewDocument,
  DecideReviewDocument,
  EscalateReviewDocument,
  LockReviewDocument,
  ReleaseReviewDocument,
  ReturnEscalationDocument,
  ReviewDocument,
  UnlockReviewDocument,
  VerificationDocument,
} from '../graphql/generated';
import { Link } from '../router';
import { useSession } from '../session';
import { reasonInWords, shortId, when } from '../words';
import { leaseLeft } from './Reviews';
import { Failure, Loading, Status } from './shared';
import { Checks } from './case/Checks';
import { Evidence } from './case/Evidence';
import { Identity } from './case/Identity';
import { Timeline } from './case/Timeline';

type Dialog = null | { kind: 'approve' | 'reject' | 'escalate' | 'return' };

/** One case: evidence, fields read, checks, findings, timeline and the reviewer's actions. */
export function CaseScreen({ reviewId }: { reviewId: string }) {
  const session = useSession();
  const me = session.viewer!.member.id;
  const now = useNow();
  const review = useQuery(ReviewDocument, { id: reviewId }, { poll: 15_000 });
  const verificationId = review.data?.review.verification?.id;
  const verification = useQuery(VerificationDocument, { id: verificationId ?? '' }, { skip: !verificationId });
  const timeline = useQuery(
    CaseTimelineDocument,
    { verificationId: verificationId ?? '', targetIds: [reviewId, verificationId ?? ''] },
    { skip: !verificationId },
  );
  const members = useQuery(CaseMembersDocument, {});
  const [dialog, setDialog] = useState<Dialog>(null);
  const [actionError, setActionError] = useState<Error | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [assignee, setAssignee] = useState<string | null>(null);
  const revealRef = useRef<(() => void) | null>(null);

  const r = review.data?.review;
  const policy = review.data?.reviewPolicy;
  const decided = !!r?.decision || r?.status === 'resolved';
  const mine = r?.claimedBy?.id === me;
  const heldByOther = !!r?.claimedBy && !mine;
  const mayDecide = !!r && !decided && (!policy?.claimRequired || mine);
  const names = useMemo(() => new Map((members.data?.members.nodes ?? []).map((m) => [m.id, m.name])), [members.data]);

  // Presence: mark "looking at it" now and on the policy's heartbeat; clear it on leaving.
  const heartbeat = policy?.presenceHeartbeatMs;
  useEffect(() => {
    if (!heartbeat) return;
    void gql(LockReviewDocument, { id: reviewId })
      .then(() => review.reload())
      .catch(() => undefined);
    const id = window.setInterval(
      () => void gql(LockReviewDocument, { id: reviewId }).catch(() => undefined),
      heartbeat,
    );
    return () => {
      window.clearInterval(id);
      void gql(UnlockReviewDocument, { id: reviewId }).catch(() => undefined);
    };
    // Once per case and heartbeat.
  }, [reviewId, heartbeat]);

  const refresh = async () => {
    await Promise.all([review.reload(), verification.reload(), timeline.reload()]);
  };

  const act = async (label: string, run: () => Promise<unknown>) => {
    setBusy(true);
    setActionError(null);
    try {
      await run();
    } catch (caught) {
      setActionError(caught as Error);
      setBusy(false);
      return;
    }
    setDialog(null);
    setBusy(false);
    // The case is read again before the outcome is announced, so what follows sees it.
    await refresh();
    setDone(label);
  };

  // Keyboard shortcuts (not while typing).
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || dialog) return;
      if ((event.target as HTMLElement).closest('input, textarea, select, [contenteditable], [role="dialog"]')) return;
      const keys: Record<string, () => void> = {
        c: () => !decided && !heldByOther && void act('Claimed', () => gql(ClaimReviewDocument, { id: reviewId })),
        a: () => mayDecide && setDialog({ kind: 'approve' }),
        r: () => mayDecide && setDialog({ kind: 'reject' }),
        e: () => !decided && r?.status !== 'escalated' && setDialog({ kind: 'escalate' }),
        v: () => document.getElementById('show-evidence')?.click(),
        i: () => revealRef.current?.(),
      };
      const handler = keys[event.key];
      if (handler) {
        event.preventDefault();
        handler();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  if (review.error && !r) return <Failure error={review.error} />;
  if (!r) return <Loading when />;
  const v = verification.data?.verification;
  const candidates = (members.data?.members.nodes ?? []).filter(
    (m) => !m.deactivatedAt && m.environments.includes(r.environment),
  );

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <div>
          <Text size="sm">
            <Link to="/console/reviews">← Reviews</Link>
          </Text>
          <Title order={2}>
            Case <span className="mono">{shortId(r.id)}</span>
          </Title>
          <Group gap="xs" mt={4}>
            <Status value={r.status} />
            {v && <Status value={v.status} />}
            <Badge variant="outline" color={r.environment === 'live' ? 'red' : 'gray'} autoContrast>
              {r.environment}
            </Badge>
            {r.decision && <Text size="sm">Decision: {r.decision}</Text>}
          </Group>
        </div>
        <Stack gap={2} align="flex-end">
          <Text size="sm" aria-live="polite">
            {r.claimedBy
              ? `Claimed by ${mine ? 'you' : r.claimedBy.name} (${leaseLeft(r.claimExpiresAt, now)} left)`
              : 'Not claimed'}
          </Text>
          <Text size="sm" c="dimmed">
            Assigned to: {r.assignedTo ? (r.assignedTo.id === me ? 'you' : r.assignedTo.name) : 'shared pool'}
          </Text>
          <Text size="sm" c="dimmed">
            Looking now:{' '}
            {r.beingReviewedBy.map((p) => (p.member.id === me ? 'you' : p.member.name)).join(', ') || 'nobody'}
          </Text>
        </Stack>
      </Group>

      <Card withBorder padding="sm" component="section" aria-label="Actions">
        <Group gap="xs" wrap="wrap">
          {!mine ? (
            <Button
              disabled={decided || heldByOther || busy}
              onClick={() => void act('Claimed', () => gql(ClaimReviewDocument, { id: reviewId }))}
            >
              Claim
            </Button>
          ) : (
            <Button
              variant="default"
              disabled={busy}
              onClick={() => void act('Released', () => gql(ReleaseReviewDocument, { id: reviewId }))}
            >
              Release
            </Button>
          )}
          <Button color="green" disabled={!mayDecide || busy} onClick={() => setDialog({ kind: 'approve' })}>
            Approve
          </Button>
          <Button color="red" disabled={!mayDecide || busy} onClick={() => setDialog({ kind: 'reject' })}>
            Reject
          </Button>
          <Button
            color="grape"
            variant="light"
            disabled={decided || r.status === 'escalated' || busy}
            onClick={() => setDialog({ kind: 'escalate' })}
          >
            Escalate
          </Button>
          {session.can('reviews.resolve_escalation') && r.status === 'escalated' && (
            <Button color="grape" variant="outline" disabled={busy} onClick={() => setDialog({ kind: 'return' })}>
              Return
            </Button>
          )}
          {session.can('reviews.assign') && !decided && (
            <Group gap={4} wrap="nowrap">
              <Select
                size="sm"
                aria-label="Assignee"
                placeholder="Choose a member"
                data={[
                  { value: '', label: 'Shared pool' },
                  ...candidates.map((m) => ({ value: m.id, label: m.id === me ? `${m.name} (you)` : m.name })),
                ]}
                value={assignee}
                onChange={setAssignee}
                w={180}
              />
              <Button
                variant="default"
                disabled={assignee === null || busy}
                onClick={() =>
                  void act('Assigned', () => gql(AssignReviewDocument, { id: reviewId, memberId: assignee || null }))
                }
              >
                Assign
              </Button>
            </Group>
          )}
        </Group>
        {policy?.claimRequired && !mine && !decided && (
          <Text size="xs" c="dimmed" mt={6}>
            Claim the case before deciding it.
          </Text>
        )}
        {done && !actionError && (
          <Text size="sm" c="green.8" mt={6} role="status">
            {done}.
          </Text>
        )}
        {actionError && (
          <Alert color="red" mt="xs" role="alert">
            {actionError.message}
            {actionError instanceof GraphqlError && actionError.code ? ` (${actionError.code})` : ''}
          </Alert>
        )}
        <Text size="xs" c="dimmed" mt={6}>
          Keys: <kbd>c</kbd> claim, <kbd>a</kbd> approve, <kbd>r</kbd> reject, <kbd>e</kbd> escalate, <kbd>v</kbd>{' '}
          evidence, <kbd>i</kbd> reveal identity.
        </Text>
      </Card>

      {r.escalation && (
        <Alert color="grape" title={r.status === 'escalated' ? 'Escalated' : 'Escalation returned'}>
          {names.get(r.escalation.escalatedBy) ?? 'A team member'} escalated on {when(r.escalation.escalatedAt)}:{' '}
          {r.escalation.reason}. Recommendation: {r.escalation.recommendation}.
          {r.escalation.returnNote && ` Returned with the note: ${r.escalation.returnNote}`}
        </Alert>
      )}

      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Stack gap="lg">
            {session.can('verifications.reveal') && verificationId && (
              <Evidence verificationId={verificationId} onViewed={() => void timeline.reload()} />
            )}
            {verificationId && (
              <Identity
                verificationId={verificationId}
                canReveal={session.can('verifications.reveal')}
                onChanged={() => void timeline.reload()}
                revealRef={revealRef}
              />
            )}
            <section aria-labelledby="checks-heading">
              <Text component="h3" id="checks-heading" fw={700} mb="xs">
                Checks
              </Text>
              {v ? (
                <>
                  <Text size="sm" mb="xs">
                    Overall: score {v.score == null ? '—' : v.score.toFixed(2)};{' '}
                    {v.reasonCodes.map(reasonInWords).join('; ') || 'no reason codes'}. Flow: {v.flow?.name ?? '—'}.{' '}
                    <Link to={`/console/verifications/${v.id}`}>Verification details</Link>
                  </Text>
                  <Checks checks={v.checks} />
                </>
              ) : (
                <Loading when={verification.loading} />
              )}
            </section>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Timeline data={timeline.data} names={names} />
        </Grid.Col>
      </Grid>

      <DecisionDialog
        kind={dialog?.kind === 'approve' || dialog?.kind === 'reject' ? dialog.kind : null}
        busy={busy}
        onClose={() => setDialog(null)}
        onSubmit={(notes, applicantMessage) =>
          void act(dialog?.kind === 'approve' ? 'Approved' : 'Rejected', () =>
            gql(DecideReviewDocument, {
              id: reviewId,
              decision: dialog!.kind,
              notes: notes || null,
              applicantMessage: applicantMessage || null,
            }),
          )
        }
      />
      <EscalateDialog
        opened={dialog?.kind === 'escalate'}
        busy={busy}
        onClose={() => setDialog(null)}
        onSubmit={(reason, recommendation) =>
          void act('Escalated', () => gql(EscalateReviewDocument, { id: reviewId, reason, recommendation }))
        }
      />
      <ReturnDialog
        opened={dialog?.kind === 'return'}
        busy={busy}
        onClose={() => setDialog(null)}
        onSubmit={(note) =>
          void act('Returned to the queue', () => gql(ReturnEscalationDocument, { id: reviewId, note: note || null }))
        }
      />
    </Stack>
  );
}

function DecisionDialog({
  kind,
  busy,
  onClose,
  onSubmit,
}: {
  kind: 'approve' | 'reject' | null;
  busy: boolean;
  onClose: () => void;
  onSubmit: (notes: string, message: string) => void;
}) {
  const [notes, setNotes] = useState('');
  const [message, setMessage] = useState('');
  return (
    <Modal
      opened={kind !== null}
      onClose={onClose}
      title={kind === 'approve' ? 'Approve this case' : 'Reject this case'}
    >
      <Stack>
        <Textarea
          label="Notes"
          description="Internal; never sent to the applicant."
          value={notes}
          onChange={(e) => setNotes(e.currentTarget.value)}
          maxLength={5000}
          autosize
          minRows={2}
        />
        <Textarea
          label="Message to the applicant"
          description="Shown in the applicant's outcome email; at most 1,000 characters."
          value={message}
          onChange={(e) => setMessage(e.currentTarget.value)}
          maxLength={1000}
          autosize
          minRows={2}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={kind === 'approve' ? 'green' : 'red'} loading={busy} onClick={() => onSubmit(notes, message)}>
            {kind === 'approve' ? 'Confirm approval' : 'Confirm rejection'}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function EscalateDialog({
  opened,
  busy,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  busy: boolean;
  onClose: () => void;
  onSubmit: (reason: string, recommendation: string) => void;
}) {
  const [reason, setReason] = useState('');
  const [recommendation, setRecommendation] = useState<string | null>('none');
  return (
    <Modal opened={opened} onClose={onClose} title="Escalate this case">
      <Stack>
        <Textarea
          label="Reason"
          required
          value={reason}
          onChange={(e) => setReason(e.currentTarget.value)}
          maxLength={1000}
          autosize
          minRows={2}
        />
        <Select
          label="Recommendation"
          value={recommendation}
          onChange={setRecommendation}
          data={[
            { value: 'none', label: 'No recommendation' },
            { value: 'approve', label: 'Approve' },
            { value: 'reject', label: 'Reject' },
          ]}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            color="grape"
            loading={busy}
            disabled={!reason.trim()}
            onClick={() => onSubmit(reason.trim(), recommendation ?? 'none')}
          >
            Confirm escalation
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function ReturnDialog({
  opened,
  busy,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  busy: boolean;
  onClose: () => void;
  onSubmit: (note: string) => void;
}) {
  const [note, setNote] = useState('');
  return (
    <Modal opened={opened} onClose={onClose} title="Return to the queue">
      <Stack>
        <Textarea
          label="Note for the reviewer"
          value={note}
          onChange={(e) => setNote(e.currentTarget.value)}
          maxLength={1000}
          autosize
          minRows={2}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="grape" loading={busy} onClick={() => onSubmit(note.trim())}>
            Confirm return
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
