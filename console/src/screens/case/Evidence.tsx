import { useState } from 'react';
import { ActionIcon, Button, Card, Group, SimpleGrid, Text } from '@mantine/core';
import { gql } from '../../api';
import { EvidenceDocument, type EvidenceQuery } from '../../graphql/generated';
import { Failure } from '../shared';

type Image = EvidenceQuery['evidence'][number];

function EvidenceImage({ image }: { image: Image }) {
  const [zoom, setZoom] = useState(1);
  const [rotation, setRotation] = useState(0);
  const label = `${image.kind.replace(/_/g, ' ')}${image.side ? ` (${image.side})` : ''}`;
  return (
    <Card withBorder padding="xs">
      <Group justify="space-between" mb={4}>
        <Text fw={600} size="sm" tt="capitalize">
          {label}
        </Text>
        <Group gap={4}>
          <ActionIcon
            variant="default"
            aria-label={`Zoom out ${label}`}
            onClick={() => setZoom((z) => Math.max(0.5, z - 0.25))}
          >
            −
          </ActionIcon>
          <ActionIcon
            variant="default"
            aria-label={`Zoom in ${label}`}
            onClick={() => setZoom((z) => Math.min(4, z + 0.25))}
          >
            +
          </ActionIcon>
          <ActionIcon
            variant="default"
            aria-label={`Rotate ${label}`}
            onClick={() => setRotation((r) => (r + 90) % 360)}
          >
            ⟳
          </ActionIcon>
        </Group>
      </Group>
      <div className="evidence-frame">
        <img
          src={image.url}
          alt={label}
          style={{ transform: `scale(${zoom}) rotate(${rotation}deg)` }}
          data-zoom={zoom}
          data-rotation={rotation}
        />
      </div>
    </Card>
  );
}

/** Document and selfie images; loading them is audited (evidence.viewed), so it is a deliberate click. */
export function Evidence({ verificationId, onViewed }: { verificationId: string; onViewed: () => void }) {
  const [images, setImages] = useState<Image[] | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    setBusy(true);
    try {
      setImages((await gql(EvidenceDocument, { verificationId })).evidence);
      setError(null);
      onViewed();
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="evidence-heading">
      <Group justify="space-between" mb="xs">
        <Text component="h3" id="evidence-heading" fw={700}>
          Evidence
        </Text>
        <Button size="xs" variant="light" loading={busy} onClick={() => void load()} id="show-evidence">
          {images ? 'Reload evidence' : 'Show evidence'}
        </Button>
      </Group>
      <Failure error={error} />
      {images && images.length === 0 && <Text c="dimmed">No images were uploaded.</Text>}
      {images && (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          {images.map((image) => (
            <EvidenceImage key={image.id} image={image} />
          ))}
        </SimpleGrid>
      )}
      {images && (
        <Text size="xs" c="dimmed" mt={4}>
          Image links expire after two minutes; reload to see them again. Viewing is recorded in the audit trail.
        </Text>
      )}
    </section>
  );
}
