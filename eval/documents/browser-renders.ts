// Documents drawn by another renderer: data pages laid out as HTML and drawn by headless Chromium
// (the zone in the shipped OCR-B cuts via @font-face, printed fields in the browser's sans font),
// then captured by the stress probes' conditions and read by the live check. The robustness corpus
// and the stress probes draw with sharp's text renderer (Pango); this asks whether the reading is
// tuned to that one renderer. Renders of our own: robustness, never accuracy.
//
//   node dist-eval/eval/documents/browser-renders.js [--probes=skew_steep,defocus,...] [--per-probe=3] [--seed=2026] [--save=<dir>]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'puppeteer-core';
import { stopOcr } from '../../src/engine/document/index.js';
import {
  CARD,
  type SynthLayout,
  type SynthPerson,
  ZONE_FONTS,
  person,
  seeded,
  zoneOf,
} from '../../test/engine/corpus/robustness-render.js';
import { launchBrowser } from '../../test/support/browser.js';
import { gradeGenuine, percentile } from './grade.js';
import { liveDocumentCheck } from './real.js';
import { PROBES } from './stress.js';

/** The captures tried by default: a spread of the stress probes (turns, scale, blur, light, print, glare). */
const DEFAULT_PROBES = [
  'skew_steep',
  'upside_down',
  'sideways_keystone',
  'tiny9',
  'far_small',
  'defocus',
  'motion',
  'dark_noise',
  'overexposed',
  'shadow_half',
  'glare_zone',
  'forwarded',
  'screen',
  'newsprint',
  'hologram',
  'curve',
];
const LAYOUTS: SynthLayout[] = ['TD3', 'TD1', 'TD2'];
const DESKS = ['#f3efe4', '#e9f0f3', '#f7f2f7', '#eef3e6'];
const INKS = ['#111111', '#222a33', '#2a2420'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** The page as HTML: a guilloche, a portrait box, captioned fields, the zone at the foot within its margin. */
function pageHtml(
  p: SynthPerson,
  layout: SynthLayout,
  look: { font: number; spacing: number; paper: string; ink: string },
) {
  const { width, height } = CARD[layout];
  const fonts = ZONE_FONTS.filter((f) => f.file)
    .map(
      (f) =>
        `@font-face { font-family: '${f.family}'; src: url(data:font/otf;base64,${fs.readFileSync(f.file!).toString('base64')}); }`,
    )
    .join('\n');
  const field = (x: number, y: number, caption: string, value: string) =>
    `<div class=c style="left:${x}px;top:${y}px">${esc(caption)}</div><div class=v style="left:${x}px;top:${y + 20}px">${esc(value)}</div>`;
  const left = Math.round(width * 0.3);
  return `<!doctype html><html><head><style>
${fonts}
body { margin: 0; background: #fff; }
#page { position: relative; width: ${width}px; height: ${height}px; border-radius: 24px; overflow: hidden; background: ${look.paper}; font-family: sans-serif; }
#page::before { content: ''; position: absolute; inset: 0; background: repeating-radial-gradient(circle at 30% 40%, rgba(120, 80, 160, 0.1) 0 2px, transparent 2px 9px), repeating-linear-gradient(60deg, rgba(40, 120, 160, 0.08) 0 1px, transparent 1px 7px); }
.title { position: absolute; left: 40px; top: 30px; font: bold 34px serif; color: #23395d; letter-spacing: 2px; }
.photo { position: absolute; left: 40px; top: 100px; width: ${left - 80}px; height: ${Math.round(height * 0.42)}px; border-radius: 8px; background: linear-gradient(#c9b7a6, #8d7766); }
.c { position: absolute; font-size: 16px; color: #4a5568; } .v { position: absolute; font-size: 26px; font-weight: 600; color: #1b1f2a; }
#zone { position: absolute; left: 44px; bottom: 36px; font-family: '${ZONE_FONTS[0].family}'; font-size: ${look.font}px; line-height: 1.5; letter-spacing: ${look.spacing}px; color: ${look.ink}; white-space: pre; }
</style></head><body><div id=page>
<div class=title>${layout === 'TD3' ? 'PASSPORT / PASSEPORT' : 'IDENTITY CARD'} &middot; ${esc(p.country)}</div><div class=photo></div>
${field(left, 100, 'Surname / Nom', p.surname)}${field(left, 165, 'Given names / Prénoms', p.given)}${field(left, 230, 'Date of birth', p.birth)}
${field(left + 300, 230, 'Document No.', p.number)}${layout === 'TD1' ? '' : field(left, 295, 'Date of expiry', p.expiry)}
<div id=zone>${esc(zoneOf(p, layout).join('\n'))}</div></div></body></html>`;
}

/** The page drawn flat (PNG). The zone's font is shrunk until its lines keep a margin inside the page, as printed zones do. */
async function drawPage(page: Page, p: SynthPerson, layout: SynthLayout, random: () => number): Promise<Buffer> {
  const { width, height } = CARD[layout];
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const spacing = pick([-0.5, 0, 1.5, 3]);
  const look = { spacing, paper: pick(DESKS), ink: pick(INKS), font: 0 };
  await page.setViewport({ width, height });
  for (let font = Math.round((width / 33) * pick([1, 0.9, 0.8])); font > 8; font -= 1) {
    await page.setContent(pageHtml(p, layout, { ...look, font }), { waitUntil: 'load' });
    await page.evaluate('document.fonts.ready');
    const zoneWidth = (await page.evaluate('document.getElementById("zone").getBoundingClientRect().width')) as number;
    if (44 + zoneWidth <= width - 44) break;
  }
  return (await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width, height } })) as Buffer;
}

async function main(args: string[]) {
  const opt = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const names = (opt('probes') ?? DEFAULT_PROBES.join(',')).split(',');
  const unknown = names.filter((n) => !PROBES[n]);
  if (unknown.length)
    throw new Error(`unknown probes: ${unknown.join(', ')} (known: ${Object.keys(PROBES).join(', ')})`);
  const perProbe = Number(opt('per-probe') ?? 3);
  const seed = Number(opt('seed') ?? 2026);
  const save = opt('save');
  const now = new Date();
  const browser = await launchBrowser();
  const page = await browser.newPage();
  const totals = { right: 0, cases: 0, ms: [] as number[] };
  try {
    for (const [k, name] of names.entries()) {
      const random = seeded(seed * 1000 + k);
      let right = 0;
      for (let i = 0; i < perProbe; i++) {
        const layout = LAYOUTS[i % LAYOUTS.length];
        const p = person(random);
        const image = await PROBES[name](await drawPage(page, p, layout, random), layout, random);
        if (save) fs.writeFileSync(path.join(save, `${name}-${i}.jpg`), image);
        const { result, ms } = await liveDocumentCheck(image, now);
        const g = gradeGenuine({ document_number: p.number, date_of_birth: p.birth, expiry_date: p.expiry }, result);
        right += g.outcome === 'read_right' ? 1 : 0;
        totals.ms.push(ms);
        console.log(
          `  ${name} ${layout}: ${g.outcome}${g.refusedAs ? ` ${g.refusedAs}` : ''}${g.idInvalid ? ' ID_INVALID' : ''}${g.wrongNumberValid ? ' WRONG-VALID' : ''}; codes ${result.reasonCodes.join(',') || 'none'}; ${Math.round(ms)} ms`,
        );
      }
      totals.right += right;
      totals.cases += perProbe;
      console.log(`PROBE ${name}: right ${right}/${perProbe}`);
    }
  } finally {
    await browser.close();
    await stopOcr();
  }
  console.log(
    `ALL: right ${totals.right}/${totals.cases}; p50 ${Math.round(percentile(totals.ms, 50) ?? 0)} ms, max ${Math.round(Math.max(...totals.ms))} ms`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2)).catch((e) => {
    console.error(e);
    process.exit(1);
  });
