import type { Tensor3D } from '../../src/engine/face/descriptor.js';
import type { loadHuman } from '../../src/engine/face/human.js';

/** Chip transforms the tuning tools try on a face chip before the descriptor (not used by the engine). */
type Human = Awaited<ReturnType<typeof loadHuman>>;

/** Unsharp mask: the chip plus `amount` times its difference from a 3x3 binomial blur. */
export const sharpen = (human: Human, chip: Tensor3D, amount: number): Tensor3D =>
  human.tf.tidy(() => {
    const tf = human.tf;
    const k = [1, 2, 1, 2, 4, 2, 1, 2, 1].map((v) => v / 16);
    const kernel = tf.tile(tf.reshape(tf.tensor1d(k), [3, 3, 1, 1]), [1, 1, 3, 1]);
    const x = tf.expandDims(chip as never, 0);
    const blurred = tf.depthwiseConv2d(x as never, kernel as never, 1, 'same');
    const out = tf.clipByValue(tf.add(x, tf.mul(tf.sub(x, blurred), amount)), 0, 255);
    return tf.squeeze(out, [0]) as unknown as Tensor3D;
  });

/** Contrast stretch: the chip's values to mean 120, standard deviation 55. */
export const stretch = (human: Human, chip: Tensor3D): Tensor3D =>
  human.tf.tidy(() => {
    const tf = human.tf;
    const { mean, variance } = tf.moments(chip as never);
    const out = tf.add(tf.mul(tf.div(tf.sub(chip as never, mean), tf.sqrt(tf.add(variance, 1e-3))), 55), 120);
    return tf.clipByValue(out, 0, 255) as unknown as Tensor3D;
  });
