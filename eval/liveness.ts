import {
  ATTACKS,
  FaceCache,
  STEPS,
  attackSequence,
  bonaFideSequence,
  decideSequence,
  loadClips,
  splitClips,
  type Clip,
  type SequenceOutcome,
} from '../src/engine/face/liveness-pad.js';
import { CHALLENGE_RULES, type ChallengeRules } from '../src/engine/face/challenge.js';
import type { EvalTable, Evaluator } from './run.js';

/**
 * `npm run engine:eval -- --check=liveness-pad`: the active challenge's APCER per attack type
 * and BPCER (ISO/IEC 30107-3) on the real clips of test/engine/liveness, held-out clips first,
 * then the tuning clips the thresholds were chosen on (src/engine/face/liveness-pad.ts).
 * `--sets=tuning` measures the tuning clips only and adds the threshold sweep.
 */

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(0)}% (${n}/${of})` : '–');

async function outcomes(clips: Clip[], all: Clip[], cache: FaceCache, rules: ChallengeRules) {
  const out: SequenceOutcome[] = [];
  for (const [i, clip] of clips.entries()) {
    out.push(await decideSequence(bonaFideSequence(clip), cache, i, rules));
    const others = all.filter((c) => c.clip !== clip.clip);
    for (const [j, kind] of ATTACKS.entries())
      out.push(await decideSequence(await attackSequence(kind, clip, others, i + 1), cache, i + j + 1, rules));
  }
  return out;
}

function row(set: string, clips: Clip[], out: SequenceOutcome[]): string[] {
  const bona = out.filter((o) => o.kind === 'bona_fide');
  return [
    set,
    String(clips.length),
    pct(bona.filter((o) => o.verdict !== 'approve').length, bona.length),
    ...ATTACKS.map((a) => {
      const mine = out.filter((o) => o.kind === a);
      return pct(mine.filter((o) => o.verdict === 'approve').length, mine.length);
    }),
  ];
}

const reasons = (out: SequenceOutcome[], kind: string) => {
  const counts = new Map<string, number>();
  for (const o of out.filter((x) => x.kind === kind)) {
    const key = o.failure ?? (o.verdict === 'approve' ? 'approved' : o.verdict);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
};

export const livenessPadEvaluator: Evaluator = {
  name: 'liveness-pad',
  async run(options): Promise<EvalTable[]> {
    const all = await loadClips();
    const split = splitClips(all.map((c) => c.clip));
    const pick = (names: string[]) => all.filter((c) => names.includes(c.clip));
    const cache = new FaceCache();
    const sets = options.sets ?? ['heldout', 'tuning'];
    const rows: string[][] = [];
    const notes: string[] = [];
    const moveRows: string[][] = [];
    for (const set of sets) {
      const clips = pick(set === 'heldout' ? split.heldOut : split.tuning);
      const out = await outcomes(clips, all, cache, CHALLENGE_RULES);
      rows.push(row(set === 'heldout' ? '**held-out**' : 'tuning', clips, out));
      for (const kind of ['bona_fide', ...ATTACKS]) {
        const mine = out.filter((o) => o.kind === kind);
        moveRows.push([
          set === 'heldout' ? '**held-out**' : 'tuning',
          kind.replace(/_/g, ' '),
          ...STEPS.map((step) => pct(mine.filter((o) => o.moves[step]).length, mine.length)),
          pct(mine.filter((o) => o.failure === 'spoof' || o.verdict !== 'reject').length, mine.length),
        ]);
      }
      notes.push(
        `${set}: ${clips.map((c) => c.clip).join(', ')}. Why: ${['bona_fide', ...ATTACKS].map((k) => `${k} [${reasons(out, k)}]`).join('; ')}.`,
      );
    }
    const tables: EvalTable[] = [
      {
        title: `Active liveness, ISO/IEC 30107-3 (default rules: turn ${CHALLENGE_RULES.turnYaw}°, blink ${CHALLENGE_RULES.blinkRatio} of the frontal eyes, passive 0.5): BPCER and APCER per attack type`,
        columns: ['set', 'people (clips)', 'BPCER', ...ATTACKS.map((a) => `APCER ${a.replace(/_/g, ' ')}`)],
        rows,
        notes: [
          "Bona fide: real clips of real people (test/engine/liveness/manifest.json), the capture window of each prompt at the clip's own moment of that move; attacks are simulated from the same people's frames (liveness-attacks.ts). An attack counts as accepted only when approved; BPCER counts every bona fide sequence not approved.",
          ...notes,
          `Distinct frames read: ${cache.reads}.`,
        ],
      },
    ];
    tables.push({
      title:
        'Each rule alone: the share of sequences whose frames show the move (and, last, that reach the passive models)',
      columns: ['set', 'presentations', ...STEPS, 'challenge kept'],
      rows: moveRows,
      notes: [
        `Rules: face_camera |yaw| ≤ ${CHALLENGE_RULES.frontalYaw}° with open eyes; turns ≥ ${CHALLENGE_RULES.turnYaw}° each way; blink ≤ ${CHALLENGE_RULES.blinkRatio} of the frontal frames' median eye openness (the face's aspect ≥ ${CHALLENGE_RULES.blinkAspect} of theirs).`,
      ],
    });
    if (sets.includes('tuning') && process.argv.includes('--sweep')) {
      const clips = pick(split.tuning);
      const sweep: string[][] = [];
      for (const turnYaw of [4, 6, 8, 10, 12, 15])
        for (const blinkRatio of [0.6, 0.7, 0.8]) {
          const rules = { ...CHALLENGE_RULES, turnYaw, blinkRatio };
          sweep.push([
            `${turnYaw}° / ${blinkRatio}`,
            ...row('tuning', clips, await outcomes(clips, all, cache, rules)).slice(2),
          ]);
        }
      tables.push({
        title: 'Tuning clips only: the rules swept (turn yaw / blink ratio)',
        columns: ['rules', 'BPCER', ...ATTACKS.map((a) => `APCER ${a.replace(/_/g, ' ')}`)],
        rows: sweep,
      });
    }
    return tables;
  },
};
