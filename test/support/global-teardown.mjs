import fs from 'node:fs';

export default async function globalTeardown() {
  const state = globalThis.__idvTest;
  if (!state) return;
  await state.s3.close().catch(() => {});
  await state.pg.stop().catch(() => {});
  fs.rmSync(state.root, { recursive: true, force: true });
}
