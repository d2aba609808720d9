/**
 * The head-turn rule is a product rule in true degrees (docs/checks-face.md, liveness): a
 * deliberate 20° turn passes, a face within 10° of the lens is frontal. CHALLENGE_RULES holds it in
 * Human's units, converted with the calibration on a real head's scan (yaw-calibration.md); these
 * tests hold the rule to every stored reading of that calibration, so a change to either breaks
 * them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CHALLENGE_RULES, shows } from '../../../src/engine/face/challenge.js';
import type { Reading } from './yaw-calibration.js';

const calibration = JSON.parse(
  readFileSync(path.join(process.cwd(), 'test/engine/liveness/yaw-calibration.json'), 'utf8'),
) as { readings: Reading[]; rule: { trueDegrees: { turn: number; frontal: number } } };
const face = (yaw: number) => ({ box: [0, 0, 200, 200] as [number, number, number, number], score: 1, age: 30, real: 0.9, live: 0.9, yaw, eyes: 0.3, aspect: 0.6, quality: [] });
const readAt = (pick: (trueYaw: number) => boolean) =>
  calibration.readings.filter((r) => r.faces === 1 && r.yaw !== null && pick(r.trueYaw));

describe('the head-turn rule in true degrees, held to the calibration', () => {
  const { turn, frontal } = calibration.rule.trueDegrees;

  it('is the rule the docs state: a 20° turn passes, within 10° is frontal', () => {
    expect({ turn, frontal }).toEqual({ turn: 20, frontal: 10 });
  });

  it('a head turned a true 20° or more to its left shows turn_left on every render (and not turn_right)', () => {
    const left = readAt((y) => y <= -turn);
    expect(left.length).toBe(90);
    for (const r of left) {
      expect(shows('turn_left', face(r.yaw!), null, CHALLENGE_RULES)).toBe(true);
      expect(shows('turn_right', face(r.yaw!), null, CHALLENGE_RULES)).toBe(false);
    }
  });

  it('a head turned a true 20° or more to its right shows turn_right on every render (and not turn_left)', () => {
    const right = readAt((y) => y >= turn);
    expect(right.length).toBe(90);
    for (const r of right) {
      expect(shows('turn_right', face(r.yaw!), null, CHALLENGE_RULES)).toBe(true);
      expect(shows('turn_left', face(r.yaw!), null, CHALLENGE_RULES)).toBe(false);
    }
  });

  it('a face within a true 10° of the lens is frontal on every render, and a frontal head (0°) is no turn', () => {
    const near = readAt((y) => Math.abs(y) <= frontal);
    expect(near.length).toBe(90);
    for (const r of near) expect(shows('face_camera', face(r.yaw!), null, CHALLENGE_RULES)).toBe(true);
    for (const r of readAt((y) => y === 0)) {
      expect(shows('turn_left', face(r.yaw!), null, CHALLENGE_RULES)).toBe(false);
      expect(shows('turn_right', face(r.yaw!), null, CHALLENGE_RULES)).toBe(false);
    }
  });

  it('the former rule (15° as Human reads it) failed some true 20° turns: the conversion is what changed', () => {
    const former = { ...CHALLENGE_RULES, turnYaw: 15 };
    const missed = readAt((y) => Math.abs(y) === turn).filter(
      (r) => !shows(r.trueYaw < 0 ? 'turn_left' : 'turn_right', face(r.yaw!), null, former),
    );
    expect(missed.length).toBeGreaterThan(0);
  });
});
