// Brings the photos of the manifest-only face sets (test/engine/faces/real-3 to real-6) onto disk from
// local git copies of their source repositories, each checked against the frozen sha256 of the
// original and of the stored file; runs no face engine. Stored files are made as for real/ and
// real-2/: the original decoded, EXIF-rotated, scaled down to at most 1024 px on the longer side, JPEG 92.
//
//   npx tsc -p tsconfig.eval.json && node dist-eval/eval/faces/materialise.js --repos=DIR [--sets=heldout3,heldout4,heldout5,heldout6]
//   (from the repository's root; --sets names sets as the eval's --sets does, default heldout3;
//   --set=real-4 names one folder instead)
//
// DIR holds one git directory per source repository, as DIR/<owner>+<name>/repo,
// DIR/<owner>+<name> or DIR/<owner>/<name>.git. --record (only when the set is first made) writes
// the originals' sizes, the stored files' sha256 and the checksum list instead of checking them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';

interface SourcedImage {
  file: string;
  person: string;
  source: string;
  repo: string;
  commit: string;
  path: string;
  width?: number;
  height?: number;
  source_sha256: string;
  sha256?: string;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

function gitDir(repos: string, repo: string): string {
  const [owner, name] = repo.split('/') as [string, string];
  const found = [
    path.join(repos, `${owner}+${name}`, 'repo'),
    path.join(repos, `${owner}+${name}`),
    path.join(repos, owner, `${name}.git`),
  ].find((dir) => existsSync(path.join(dir, 'HEAD')));
  if (!found) throw new Error(`no git directory of ${repo} under ${repos}`);
  return found;
}

/** The stored form of an original: EXIF-rotated, at most 1024 px on the longer side, JPEG quality 92. */
async function storedPhoto(original: Buffer): Promise<Buffer> {
  return sharp(original)
    .rotate()
    .resize(1024, 1024, { fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/** The manifest-only sets, by their `--sets=` name (the eval's, eval/faces/real.ts), and their folders. */
const SET_FOLDERS: Record<string, string> = {
  heldout3: 'real-3',
  heldout4: 'real-4',
  heldout5: 'real-5',
  heldout6: 'real-6',
};

async function main() {
  const args = process.argv.slice(2);
  const arg = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const repos = arg('repos');
  if (!repos)
    throw new Error('usage: materialise.js --repos=DIR [--sets=heldout3,heldout4,heldout5 | --set=real-3] [--record]');
  const sets = arg('sets')?.split(',') ?? [];
  const unknown = sets.filter((s) => !SET_FOLDERS[s]);
  if (unknown.length)
    throw new Error(`unknown set ${unknown.join(', ')}: one of ${Object.keys(SET_FOLDERS).join(', ')}`);
  const folders = arg('set') ? [arg('set')!] : sets.length ? sets.map((s) => SET_FOLDERS[s]!) : ['real-3'];
  for (const folder of folders)
    await materialise(repos, path.resolve('test/engine/faces', folder), args.includes('--record'));
}

async function materialise(repos: string, dir: string, record: boolean) {
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { images: SourcedImage[] };
  let written = 0;
  const wrong: string[] = [];
  for (const image of manifest.images) {
    const original = execFileSync(
      'git',
      ['--git-dir', gitDir(repos, image.repo), 'cat-file', 'blob', `${image.commit}:${image.path}`],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    if (sha256(original) !== image.source_sha256) {
      wrong.push(`${image.file}: the original's sha256 differs (${image.repo} ${image.commit} ${image.path})`);
      continue;
    }
    const stored = await storedPhoto(original);
    if (record) {
      const meta = await sharp(original).metadata();
      Object.assign(image, { width: meta.width, height: meta.height, sha256: sha256(stored) });
    } else if (sha256(stored) !== image.sha256) {
      wrong.push(`${image.file}: the stored file's sha256 differs (another sharp/libvips build?)`);
      continue;
    }
    await mkdir(path.dirname(path.join(dir, image.file)), { recursive: true });
    await writeFile(path.join(dir, image.file), stored);
    written++;
  }
  if (record) {
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 1)}\n`);
    const list = manifest.images.map((i) => `${i.sha256}  ${i.file}\n`).join('');
    await writeFile(path.join(dir, `held-out-${path.basename(dir).replace('real-', '')}.sha256`), list);
  }
  console.log(`${written}/${manifest.images.length} photos written to ${dir}`);
  if (wrong.length) {
    console.error(wrong.join('\n'));
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
