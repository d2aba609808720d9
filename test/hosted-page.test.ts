import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { startEmbeddedS3, type EmbeddedStore } from '../src/embedded/s3.js';
import type { BootstrapResult } from '../src/services/access/index.js';
import { withTestAccount } from './support/account.js';
import { launchBrowser } from './support/browser.js';
import { createHostedSession } from './support/hosted.js';
import { pngImage } from './support/images.js';
import { startMailServer, type MailServer } from './support/mail.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import type { TestServer } from './support/test-server.js';
import { waitFor } from './support/wait.js';

/**
 * The hosted page in a real browser (headless Chromium from npm) against the real service,
 * store and SMTP server. Screenshots of each step go to $HOSTED_SCREENSHOTS when it is set
 * (docs/hosted-page holds the committed ones).
 */
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const shots = process.env.HOSTED_SCREENSHOTS;
// Page code run by page.evaluate: typed loosely here (the project's lib has no DOM types).
declare const document: any;
declare const window: any;
declare function getComputedStyle(element: unknown): any;

const PHONE = { width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true };

let store: EmbeddedStore;
let mail: MailServer;
let receiver: Receiver;
let browser: Browser;
let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
const files: Record<string, string> = {};
/** The embedded store answers only requests signed with its own key pair. */
const STORE_KEYS = { accessKeyId: 'IDVHOSTEDPAGETEST', secretAccessKey: 'hosted-page-test-secret' };

beforeAll(async () => {
  mail = await startMailServer();
  receiver = await startReceiver();
  // The embedded store as `npm start` runs it, with CORS for the page's origin (any local test port).
  store = await startEmbeddedS3(fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-store-')), 'idv-hosted', STORE_KEYS, 0, ['http://127.0.0.1:*']);
  browser = await launchBrowser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-page-'));
  const write = (name: string, bytes: Buffer) => fs.writeFileSync((files[name] = path.join(dir, name)), bytes);
  write('document.png', pngImage(1000, 700, 150, 1));
  write('selfie.png', pngImage(720, 960, 140, 2));
  write('small-dark.png', pngImage(200, 150, 20, 3));
  write('animation.gif', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'));
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await mail?.close();
  await store?.stop();
});
withTestAccount(
  (t) => ({ server, account, sandbox } = t),
  () => ({ env: { SMTP_URL: mail.url, S3_ENDPOINT: store.endpoint, S3_BUCKET: 'idv-hosted', S3_ACCESS_KEY_ID: STORE_KEYS.accessKeyId, S3_SECRET_ACCESS_KEY: STORE_KEYS.secretAccessKey, RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } }),
);

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP reports seen by the page. */
  problems: string[];
}

async function open(url: string, viewport: Parameters<Page['setViewport']>[0] = { width: 1280, height: 900 }): Promise<Opened> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(viewport);
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  return { page, context, problems };
}

// 3 s of recording plus its upload can take long on a loaded machine; callers pass a longer wait there.
// A heading that never comes fails with what the screen shows instead (an upload error, a retry).
async function heading(page: Page, text: string, timeout = 15_000) {
  try {
    await page.waitForFunction((want) => document.querySelector('#screen h1')?.textContent === want, { timeout }, text);
  } catch (error) {
    const shown = await page.$eval('#screen', (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()).catch(() => '(no #screen)');
    throw new Error(`waited ${timeout} ms for the heading "${text}"; the screen shows: ${shown.slice(0, 500)}`, { cause: error });
  }
}

/** The camera preview shows frames: what an applicant sees before pressing record. */
const cameraLive = (page: Page) => page.waitForFunction(() => (document.querySelector('video.camera')?.readyState ?? 0) >= 2, { timeout: 15_000 });

async function clickButton(page: Page, text: string) {
  const button = await page.waitForSelector(`::-p-xpath(//button[normalize-space(.)="${text}"])`, { timeout: 15_000 });
  await button!.click();
}

async function chooseFile(page: Page, file: string) {
  const input = await page.waitForSelector('#screen input[type=file]');
  await input!.uploadFile(file);
}

/** axe-core in the page: zero serious or critical violations. */
async function expectAccessible(page: Page, where: string) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect({ where, violations }).toEqual({ where, violations: [] });
}

async function screenshot(page: Page, name: string) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`) as `${string}.png`, fullPage: true });
}

const pageUrl = (id: string, token: string) => `${server.url}/verify/${id}#token=${token}`;
const statusOf = async (id: string) => (await server.request(`/v1/verifications/${id}`, { token: sandbox })).body.status as string;

async function emailStep(page: Page, email: string, shotPrefix?: string) {
  await heading(page, 'Your email address');
  if (shotPrefix) await screenshot(page, `${shotPrefix}-1-email`);
  await page.type('input[type=email]', email);
  await page.keyboard.press('Enter');
  await heading(page, 'Enter the code');
  const code = await mail.codeFor(email);
  await page.type('input[name=code]', code);
  if (shotPrefix) await screenshot(page, `${shotPrefix}-2-code`);
  await clickButton(page, 'Confirm');
}

describe('the hosted page in Chromium', () => {
  it('an applicant completes email, passport, selfie and liveness; submit reaches processing, then a verdict, and the events are delivered', async () => {
    const hook = await server.request('/v1/webhooks', { token: sandbox, body: { url: `${receiver.url}/hooks`, events: ['verification.awaiting_service', 'verification.approved', 'verification.completed'] } });
    expect(hook.status).toBe(201);
    const v = await createHostedSession(server, account);
    const { page, problems, context } = await open(pageUrl(v.id, v.client_token!));
    // The token left the address bar (kept for this tab only) and no request carried it in a URL.
    await heading(page, 'Your email address');
    expect(page.url()).toBe(`${server.url}/verify/${v.id}`);
    await expectAccessible(page, 'email');
    const email = `page-${Date.now()}@example.com`;
    await emailStep(page, email, 'desktop');

    await heading(page, 'Your identity document');
    await screenshot(page, 'desktop-3-document-type');
    await expectAccessible(page, 'document type');
    await page.click('input[value=passport]');
    await clickButton(page, 'Continue');
    await heading(page, 'Front of your Passport');
    await screenshot(page, 'desktop-4-document-front');
    await expectAccessible(page, 'capture');
    await chooseFile(page, files['document.png']!);

    await heading(page, 'A photo of your face');
    await screenshot(page, 'desktop-5-selfie');
    await chooseFile(page, files['selfie.png']!);

    await heading(page, 'A short video of your face');
    await clickButton(page, 'Start recording');
    await cameraLive(page);
    // The preview's box is 4:3 whatever the camera sends (Chromium's fake camera is 16:9), so the
    // buttons below it stay where they were when the camera started.
    const box = await page.$eval('video.camera', (el) => ({ width: el.clientWidth, height: el.clientHeight, camera: el.videoWidth / el.videoHeight }));
    expect(box.camera).not.toBeCloseTo(4 / 3, 1);
    expect(box.height).toBeCloseTo((box.width * 3) / 4, -1);
    await screenshot(page, 'desktop-6-liveness');
    await clickButton(page, 'Start recording');
    await heading(page, 'Ready to submit', 45_000);
    await screenshot(page, 'desktop-7-submit');
    expect(await statusOf(v.id)).toBe('pending');
    await clickButton(page, 'Submit');
    await heading(page, 'Thank you');
    await screenshot(page, 'desktop-8-result');
    await expectAccessible(page, 'result');
    const resultText = await page.$eval('#screen', (el) => el.textContent ?? '');
    expect(resultText).toContain('being checked');
    expect(resultText).not.toMatch(/approv|reject|score|verdict/i);

    const uploads = await server.sql<{ kind: string; status: string }>('select kind, status from uploads where verification_id = $1 order by kind', [v.id]);
    expect(uploads).toEqual([{ kind: 'document', status: 'uploaded' }, { kind: 'selfie', status: 'uploaded' }, { kind: 'video', status: 'uploaded' }]);
    await waitFor(async () => (await statusOf(v.id)) === 'approved', 20_000, 'the verdict');
    const delivered = await receiver.waitFor(3, (r) => r.body.includes(v.id), 20_000);
    expect(delivered.map((r) => JSON.parse(r.body).type)).toEqual(expect.arrayContaining(['verification.awaiting_service', 'verification.completed', 'verification.approved']));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('retries a failed upload, shows hints for a small dark image, and refuses an unsupported type with a clear message', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'face_match' }] });
    const { page, context } = await open(pageUrl(v.id, v.client_token!));
    await heading(page, 'Your identity document');
    await page.click('input[value=passport]');
    await clickButton(page, 'Continue');
    await heading(page, 'Front of your Passport');

    await chooseFile(page, files['animation.gif']!);
    const refusal = await page.waitForSelector('#screen .error:not(:empty)');
    expect(await refusal!.evaluate((el) => el.textContent)).toContain('This type of file is not accepted');

    await chooseFile(page, files['small-dark.png']!);
    await page.waitForSelector('.hints');
    expect(await page.$$eval('.hints li', (items) => items.map((li) => li.getAttribute('data-hint')))).toEqual(expect.arrayContaining(['small', 'dark']));
    await screenshot(page, 'desktop-hints');
    await expectAccessible(page, 'hints');
    await clickButton(page, 'Choose another');

    // The first PUT to the store fails in the network; the page offers a retry that succeeds.
    await page.setRequestInterception(true);
    let failed = 0;
    page.on('request', (request) => {
      if (request.method() === 'PUT' && failed === 0) {
        failed += 1;
        void request.abort('failed');
      } else void request.continue();
    });
    await chooseFile(page, files['document.png']!);
    await clickButton(page, 'Retry upload');
    await heading(page, 'A photo of your face');
    expect(failed).toBe(1);
    expect(await server.sql('select side, status from uploads where verification_id = $1 and status = $2', [v.id, 'uploaded'])).toEqual([{ side: 'front', status: 'uploaded' }]);
    await context.close();
  });

  it('a person who pauses mid-flow continues with a renewed link where they stopped; the old link no longer opens', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'document' }, { type: 'face_match' }] });
    const first = await open(pageUrl(v.id, v.client_token!));
    await heading(first.page, 'Your identity document');
    await first.page.click('input[value=passport]');
    await clickButton(first.page, 'Continue');
    await chooseFile(first.page, files['document.png']!);
    await heading(first.page, 'A photo of your face');
    await first.context.close();

    const renewed = await server.request(`/v1/verifications/${v.id}/client_token`, { token: sandbox, body: {} });
    expect(renewed.status).toBe(200);
    const old = await open(pageUrl(v.id, v.client_token!));
    await heading(old.page, 'This link is not valid');
    await old.context.close();
    const resumed = await open(pageUrl(v.id, renewed.body.client_token));
    await heading(resumed.page, 'A photo of your face');
    await chooseFile(resumed.page, files['selfie.png']!);
    await heading(resumed.page, 'Ready to submit');
    await clickButton(resumed.page, 'Submit');
    await heading(resumed.page, 'Thank you');
    expect(resumed.problems).toEqual([]);
    await resumed.context.close();
  });

  it('a wrong token, a missing token and an expired session each get a clear page', async () => {
    const a = await createHostedSession(server, account);
    const b = await createHostedSession(server, account);
    for (const url of [pageUrl(a.id, b.client_token!), `${server.url}/verify/${a.id}`, `${server.url}/verify/vs_nothing`]) {
      const { page, context, problems } = await open(url);
      await heading(page, 'This link is not valid');
      expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Ask the company that sent you here for a new link');
      expect(problems.filter((p) => !p.includes('401') && !p.includes('404'))).toEqual([]);
      await context.close();
    }
    await server.sql(`update verifications set expires_at = now() - interval '1 minute' where id = $1`, [a.id]);
    const { page, context } = await open(pageUrl(a.id, a.client_token!));
    await heading(page, 'This link has expired');
    await screenshot(page, 'desktop-expired');
    await expectAccessible(page, 'expired');
    await context.close();
  });

  it('on a phone-sized viewport in German, with the flow\'s branding, nothing overflows and every step reads in German', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { name: `Branded ${Date.now()}`, steps: [{ type: 'email' }, { type: 'document' }, { type: 'face_match' }, { type: 'liveness' }], accepted_document_types: ['id_card', 'passport'], brand_name: 'Acme Bank', accent_color: '#0F766E' },
    });
    expect(flow.status).toBe(201);
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id, locale: 'de-DE' });
    const { page, context } = await open(pageUrl(v.id, v.client_token!), PHONE);
    await heading(page, 'Ihre E-Mail-Adresse');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.$eval('.brand-name', (el) => el.textContent)).toBe('Acme Bank');
    expect(await page.$eval('button.primary', (el) => getComputedStyle(el).backgroundColor)).toBe('rgb(15, 118, 110)');
    await screenshot(page, 'phone-1-email');
    await expectAccessible(page, 'phone email');
    const email = `de-${Date.now()}@example.com`;
    await page.type('input[type=email]', email);
    await page.keyboard.press('Enter');
    await heading(page, 'Code eingeben');
    expect(mail.received.find((m) => m.to.includes(email))!.raw).toContain('Ihr Code lautet');
    await page.type('input[name=code]', await mail.codeFor(email));
    await screenshot(page, 'phone-2-code');
    await clickButton(page, 'Bestätigen');
    await heading(page, 'Ihr Ausweisdokument');
    // The chooser offers only the flow's accepted types.
    expect(await page.$$eval('input[name=document_type]', (inputs) => inputs.map((i: any) => i.value))).toEqual(['id_card', 'passport']);
    await screenshot(page, 'phone-3-document-type');
    // Keyboard only: the first choice is selected; Tab reaches the button, Enter continues.
    await page.focus('input[value=id_card]');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Weiter');
    await page.keyboard.press('Enter');
    await heading(page, 'Vorderseite: Personalausweis');
    await screenshot(page, 'phone-4-document-front');
    await expectAccessible(page, 'phone capture');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await chooseFile(page, files['document.png']!);
    await heading(page, 'Rückseite: Personalausweis');
    await chooseFile(page, files['document.png']!);
    await heading(page, 'Ein Foto Ihres Gesichts');
    await screenshot(page, 'phone-5-selfie');
    await chooseFile(page, files['selfie.png']!);
    await heading(page, 'Ein kurzes Video Ihres Gesichts');
    await clickButton(page, 'Aufnahme starten');
    await cameraLive(page);
    await screenshot(page, 'phone-6-liveness');
    await clickButton(page, 'Aufnahme starten');
    await heading(page, 'Bereit zum Absenden', 45_000);
    await screenshot(page, 'phone-7-submit');
    await clickButton(page, 'Absenden');
    await heading(page, 'Vielen Dank');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Acme Bank teilt Ihnen das Ergebnis mit');
    await screenshot(page, 'phone-8-result');
    expect(await statusOf(v.id)).not.toBe('pending');
    await context.close();
  });

  it('a flow preview opens the same page in preview mode and records nothing', async () => {
    const flow = await server.request('/v1/flows', { token: sandbox, body: { name: `Preview ${Date.now()}`, steps: [{ type: 'email' }, { type: 'face_match' }] } });
    const preview = await server.request(`/v1/flows/${flow.body.id}/preview`, { token: sandbox, body: {} });
    const sent = mail.received.length;
    const { page, context } = await open(`${server.url}${new URL(preview.body.url).pathname}${new URL(preview.body.url).hash}`);
    await heading(page, 'Your email address');
    expect(await page.$eval('#preview-banner', (el) => el.textContent)).toContain('Preview');
    await page.type('input[type=email]', 'someone@example.com');
    await page.keyboard.press('Enter');
    await heading(page, 'Enter the code');
    await page.type('input[name=code]', '000000');
    await clickButton(page, 'Confirm');
    await heading(page, 'Your identity document');
    await page.click('input[value=passport]');
    await clickButton(page, 'Continue');
    await chooseFile(page, files['document.png']!);
    await heading(page, 'A photo of your face');
    await chooseFile(page, files['selfie.png']!);
    await heading(page, 'Ready to submit');
    await clickButton(page, 'Submit');
    await heading(page, 'Thank you');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Nothing was recorded');
    expect(mail.received.length).toBe(sent);
    expect(await server.sql('select status from verifications where id = $1', [preview.body.id])).toEqual([{ status: 'pending' }]);
    expect(await server.sql('select id from uploads where verification_id = $1', [preview.body.id])).toEqual([]);
    await context.close();
  });
});
