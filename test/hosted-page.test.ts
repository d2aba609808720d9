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
declare const location: any;
declare const navigator: any;
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

beforeAll(async () => {
  mail = await startMailServer();
  receiver = await startReceiver();
  // The embedded store as `npm start` runs it, with CORS for the page's origin (any local test port).
  store = await startEmbeddedS3(fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-store-')), 'idv-hosted', 0, ['http://127.0.0.1:*']);
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
  () => ({ env: { SMTP_URL: mail.url, S3_ENDPOINT: store.endpoint, S3_BUCKET: 'idv-hosted', RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_RETRY_SCHEDULE: '1,1,1' } }),
);

interface Opened {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP reports seen by the page. */
  problems: string[];
}

async function open(url: string, viewport: Parameters<Page['setViewport']>[0] = { width: 1280, height: 900 }, before?: (page: Page) => Promise<unknown>): Promise<Opened> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(viewport);
  if (before) await before(page);
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
    // A missing value never shows as a word on the screen.
    expect(await page.$eval('#screen', (el) => el.textContent ?? '')).not.toMatch(/\b(null|undefined)\b/);
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

/** axe-core in the page: no violation of any impact. */
async function expectAccessible(page: Page, where: string) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => `${v.impact} ${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect({ where, violations }).toEqual({ where, violations: [] });
}

/** The consent step, first of every walk: the explicit "I agree". */
async function agree(page: Page, title = 'Before you start', button = 'I agree') {
  await heading(page, title);
  await clickButton(page, button);
}

/** A file chosen for a photo step, looked at on its review screen, then used. */
async function useFile(page: Page, file: string, review = 'Check your photo', use = 'Use this photo') {
  await chooseFile(page, file);
  await heading(page, review);
  await clickButton(page, use);
}

/** Keyboard only: Tab until the named control has focus (at most 40 presses), then Enter. */
async function press(page: Page, text: string) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => (document.activeElement?.textContent ?? '').trim());
    if (focused === text) {
      await page.keyboard.press('Enter');
      return;
    }
  }
  const shown = await page.$eval('#screen', (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
  throw new Error(`no control "${text}" reachable by Tab; the screen shows: ${shown.slice(0, 400)}`);
}

/** Nothing scrolls sideways (a 1280 px window at 200% zoom is 640 CSS pixels wide). */
const fitsWidth = async (page: Page, width: number) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
const activityOf = async (id: string) => server.sql<{ action: string; surface: string }>('select action, surface from activity_events where target_id = $1', [id]);

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
  it('consent accepted, then email, passport (reviewed), selfie and liveness; submit reaches processing, then approval (sandbox specimen), and the events are delivered', async () => {
    const hook = await server.request('/v1/webhooks', { token: sandbox, body: { url: `${receiver.url}/hooks`, events: ['verification.awaiting_service', 'verification.approved', 'verification.completed'] } });
    expect(hook.status).toBe(201);
    // No sandbox.document: the sandbox reads its specimen and settles approved (issue 30).
    const v = await createHostedSession(server, account, { sandbox: { outcome: 'pending' } });
    const { page, problems, context } = await open(pageUrl(v.id, v.client_token!));
    // The token left the address bar (kept for this tab only) and no request carried it in a URL.
    await heading(page, 'Before you start');
    expect(page.url()).toBe(`${server.url}/verify/${v.id}`);
    const consentText = await page.$eval('#screen', (el) => el.textContent ?? '');
    for (const words of ['Photos of your identity document', 'Photos and a short video of your face', 'A biometric template', 'used only for this check', 'deleted 3 years after', 'is responsible for your data']) {
      expect(consentText).toContain(words);
    }
    // An explicit choice: two buttons, no box to tick.
    expect(await page.$$('#screen input[type=checkbox]')).toEqual([]);
    await screenshot(page, 'desktop-0-consent');
    await expectAccessible(page, 'consent');
    // Nothing can be captured before the choice.
    expect((await server.request(`/v1/hosted/verifications/${v.id}/uploads`, { token: v.client_token!, body: { kind: 'selfie', content_type: 'image/png' } })).body.error.code).toBe('CONSENT_REQUIRED');
    await clickButton(page, 'I agree');

    await heading(page, 'Your email address');
    await expectAccessible(page, 'email');
    const email = `page-${Date.now()}@example.com`;
    await emailStep(page, email, 'desktop');

    await heading(page, 'Your identity document');
    await screenshot(page, 'desktop-3-document-type');
    await expectAccessible(page, 'document type');
    await page.click('input[value=passport]');
    await clickButton(page, 'Continue');
    await heading(page, 'Front of your passport');
    await screenshot(page, 'desktop-4-document-front');
    await expectAccessible(page, 'capture');
    await chooseFile(page, files['document.png']!);
    await heading(page, 'Check your photo');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Is all the text readable?');
    await screenshot(page, 'desktop-4b-document-review');
    await expectAccessible(page, 'review');
    await clickButton(page, 'Use this photo');

    await heading(page, 'A photo of your face');
    await screenshot(page, 'desktop-5-selfie');
    await useFile(page, files['selfie.png']!);

    await heading(page, 'A short video of your face');
    // Two buttons, two names: the one that opens the camera and the one that records.
    await clickButton(page, 'Open the camera');
    await cameraLive(page);
    // The preview's box is 4:3 whatever the camera sends (Chromium's fake camera is 16:9), so the
    // buttons below it stay where they were when the camera started.
    const box = await page.$eval('video.camera', (el) => ({ width: el.clientWidth, height: el.clientHeight, camera: el.videoWidth / el.videoHeight }));
    expect(box.camera).not.toBeCloseTo(4 / 3, 1);
    expect(box.height).toBeCloseTo((box.width * 3) / 4, -1);
    await expectAccessible(page, 'liveness camera');
    await clickButton(page, 'Start recording');
    await page.waitForFunction(() => /seconds left/.test(document.querySelector('#screen [role=status]')?.textContent ?? ''), { timeout: 5_000 });
    await screenshot(page, 'desktop-6-liveness');
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
    // No return_url: no way back is invented.
    expect(await page.$$('#screen a')).toEqual([]);

    const uploads = await server.sql<{ kind: string; status: string }>('select kind, status from uploads where verification_id = $1 order by kind', [v.id]);
    expect(uploads).toEqual([{ kind: 'document', status: 'uploaded' }, { kind: 'selfie', status: 'uploaded' }, { kind: 'video', status: 'uploaded' }]);
    await waitFor(async () => (await statusOf(v.id)) === 'approved', 20_000, 'the verdict');
    const read = await server.request(`/v1/verifications/${v.id}`, { token: sandbox });
    expect(read.body.consent).toMatchObject({ language: 'en', version: expect.any(String) });
    const delivered = await receiver.waitFor(3, (r) => r.body.includes(v.id), 20_000);
    expect(delivered.map((r) => JSON.parse(r.body).type)).toEqual(expect.arrayContaining(['verification.awaiting_service', 'verification.completed', 'verification.approved']));
    expect(problems).toEqual([]);
    await context.close();
  });

  it('"I do not agree" ends the applicant\'s part: a page saying what happens next with the support link; pending; an activity row', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { name: `Decline ${Date.now()}`, steps: [{ type: 'document' }, { type: 'face_match' }], brand_name: 'Acme Bank', support_url: 'https://acme.example/help', privacy_url: 'https://acme.example/privacy' },
    });
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id });
    const { page, context, problems } = await open(pageUrl(v.id, v.client_token!));
    await heading(page, 'Before you start');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Acme Bank is responsible for your data');
    expect(await page.$eval('#screen a', (el) => ({ href: el.getAttribute('href'), text: el.textContent }))).toEqual({ href: 'https://acme.example/privacy', text: 'Privacy notice of Acme Bank' });
    await clickButton(page, 'I do not agree');
    await heading(page, 'You did not agree');
    const text = await page.$eval('#screen', (el) => el.textContent ?? '');
    expect(text).toContain('Nothing was captured');
    expect(text).toContain('contact Acme Bank');
    expect(await page.$eval('#screen a', (el) => el.getAttribute('href'))).toBe('https://acme.example/help');
    await screenshot(page, 'desktop-declined');
    await expectAccessible(page, 'declined');
    expect(await statusOf(v.id)).toBe('pending');
    expect(await activityOf(v.id)).toEqual([{ action: 'consent.declined', surface: 'hosted' }]);
    // A reload shows the same page: the applicant's part is over.
    await page.reload({ waitUntil: 'domcontentloaded' });
    await heading(page, 'You did not agree');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the end screen offers "Back to {brand}" and goes to the key\'s return_url after a few seconds; no other URL is followed', async () => {
    const flow = await server.request('/v1/flows', { token: sandbox, body: { name: `Return ${Date.now()}`, steps: [{ type: 'document' }], accepted_document_types: ['passport'], brand_name: 'Acme Bank' } });
    const back = `${receiver.url}/back-from-kyc?order=7`;
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id, return_url: back });
    // A return address in the page's own URL is ignored: only the key's is ever followed.
    const { page, context } = await open(`${server.url}/verify/${v.id}?return_url=https%3A%2F%2Fevil.example#token=${v.client_token}`);
    await agree(page);
    await heading(page, 'Front of your passport');
    await useFile(page, files['document.png']!);
    await heading(page, 'Ready to submit');
    await clickButton(page, 'Submit');
    await heading(page, 'Thank you');
    const link = await page.$eval('#screen a', (el) => ({ href: el.getAttribute('href'), text: el.textContent }));
    expect(link).toEqual({ href: back, text: 'Back to Acme Bank' });
    expect(await page.$eval('#screen [role=status]', (el) => el.textContent)).toMatch(/Taking you back in \d+ seconds/);
    await screenshot(page, 'desktop-9-return');
    await expectAccessible(page, 'return');
    await page.waitForFunction((want) => location.href === want, { timeout: 20_000 }, back);
    expect(receiver.requests.some((r) => r.path.startsWith('/back-from-kyc'))).toBe(true);
    await context.close();
  });

  it('a capture is retaken from its review screen; a failed upload is retried; hints for a small dark image; an unsupported type is refused in words', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'face_match' }] });
    const { page, context } = await open(pageUrl(v.id, v.client_token!));
    await agree(page);
    await heading(page, 'Your identity document');
    await page.click('input[value=passport]');
    await clickButton(page, 'Continue');
    await heading(page, 'Front of your passport');

    await chooseFile(page, files['animation.gif']!);
    await heading(page, 'Check your photo');
    await clickButton(page, 'Use this photo');
    const refusal = await page.waitForSelector('#screen .error:not(:empty)');
    expect(await refusal!.evaluate((el) => el.textContent)).toContain('This type of file is not accepted');

    await chooseFile(page, files['small-dark.png']!);
    await heading(page, 'Check your photo');
    await page.waitForSelector('.hints');
    expect(await page.$$eval('.hints li', (items) => items.map((li) => li.getAttribute('data-hint')))).toEqual(expect.arrayContaining(['small', 'dark']));
    await screenshot(page, 'desktop-hints');
    await expectAccessible(page, 'hints');
    // Retake: nothing of the first photo is uploaded.
    await clickButton(page, 'Retake');
    await heading(page, 'Front of your passport');
    expect(await server.sql('select id from uploads where verification_id = $1', [v.id])).toEqual([]);

    // The first PUT to the store fails in the network; the page offers a retry that succeeds.
    await page.setRequestInterception(true);
    let failed = 0;
    page.on('request', (request) => {
      if (request.method() === 'PUT' && failed === 0) {
        failed += 1;
        void request.abort('failed');
      } else void request.continue();
    });
    await useFile(page, files['document.png']!);
    await clickButton(page, 'Retry upload');
    await heading(page, 'A photo of your face');
    expect(failed).toBe(1);
    expect(await server.sql('select side, status from uploads where verification_id = $1', [v.id])).toEqual([{ side: 'front', status: 'uploaded' }]);

    // Back on every step: to the front, which can be kept, then forward again.
    await clickButton(page, 'Back');
    await heading(page, 'Front of your passport');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('You already sent this');
    await clickButton(page, 'Keep the one already sent');
    await heading(page, 'A photo of your face');
    await context.close();
  });

  it('desktop without a camera continues on a phone: a QR code of the same link, and the desktop follows the phone to the end', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'document' }, { type: 'face_match' }] });
    const noCamera = (page: Page) => page.evaluateOnNewDocument(() => {
      Object.defineProperty(navigator.mediaDevices, 'enumerateDevices', { value: async () => [] });
    });
    const desktop = await open(pageUrl(v.id, v.client_token!), { width: 1280, height: 900 }, noCamera);
    await agree(desktop.page);
    await heading(desktop.page, 'Your identity document');
    await desktop.page.click('input[value=passport]');
    await clickButton(desktop.page, 'Continue');
    await heading(desktop.page, 'Front of your passport');
    expect(await desktop.page.$eval('#screen', (el) => el.textContent)).toContain('No camera here?');
    await clickButton(desktop.page, 'Continue on your phone');
    await heading(desktop.page, 'Continue on your phone');
    await desktop.page.waitForFunction(() => (document.querySelector('img.qr')?.naturalWidth ?? 0) > 0, { timeout: 10_000 });
    await screenshot(desktop.page, 'desktop-handoff');
    await expectAccessible(desktop.page, 'handoff');

    // The phone opens the link the QR code carries (test/hosted-api.test.ts checks the code encodes it).
    const phone = await open(pageUrl(v.id, v.client_token!), PHONE);
    await heading(phone.page, 'Your identity document');
    await phone.page.click('input[value=passport]');
    await clickButton(phone.page, 'Continue');
    await heading(phone.page, 'Front of your passport');
    // A phone is not offered a phone.
    expect(await phone.page.$eval('#screen', (el) => el.textContent)).not.toContain('Continue on your phone');
    await useFile(phone.page, files['document.png']!);
    await heading(phone.page, 'A photo of your face');
    await desktop.page.waitForFunction(() => /Document: done/.test(document.querySelector('.checklist')?.textContent ?? ''), { timeout: 15_000 });
    await useFile(phone.page, files['selfie.png']!);
    await heading(phone.page, 'Ready to submit');
    await clickButton(phone.page, 'Submit');
    await heading(phone.page, 'Thank you');
    await heading(desktop.page, 'Thank you', 20_000);
    expect(await statusOf(v.id)).not.toBe('pending');
    expect(desktop.problems).toEqual([]);
    await phone.context.close();
    await desktop.context.close();
  });

  it('the whole walk by keyboard alone, at 200% zoom with reduced motion: nothing scrolls sideways and nothing animates', async () => {
    const v = await createHostedSession(server, account, { sandbox: { outcome: 'pending' } });
    const zoomed = { width: 640, height: 450, deviceScaleFactor: 2 };
    const { page, context, problems } = await open(pageUrl(v.id, v.client_token!), zoomed, (p) => p.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]));
    await heading(page, 'Before you start');
    await fitsWidth(page, zoomed.width);
    await press(page, 'I agree');
    await heading(page, 'Your email address');
    await page.keyboard.press('Tab');
    const email = `keys-${Date.now()}@example.com`;
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await heading(page, 'Enter the code');
    await page.keyboard.press('Tab');
    await page.keyboard.type(await mail.codeFor(email));
    await page.keyboard.press('Enter');
    await heading(page, 'Your identity document');
    await fitsWidth(page, zoomed.width);
    await press(page, 'Continue');
    await heading(page, 'Front of your passport');
    for (const [title, next] of [['Front of your passport', 'A photo of your face'], ['A photo of your face', 'A short video of your face']] as const) {
      await heading(page, title);
      await press(page, 'Take a photo');
      await cameraLive(page);
      await fitsWidth(page, zoomed.width);
      if (title.startsWith('Front')) await screenshot(page, 'zoom-200-document-camera');
      await press(page, 'Take the photo');
      await heading(page, 'Check your photo');
      await fitsWidth(page, zoomed.width);
      await press(page, 'Use this photo');
      await heading(page, next);
    }
    await press(page, 'Open the camera');
    await cameraLive(page);
    await press(page, 'Start recording');
    await page.waitForFunction(() => /seconds left/.test(document.querySelector('#screen [role=status]')?.textContent ?? ''), { timeout: 5_000 });
    expect(await page.evaluate(() => document.getAnimations().length)).toBe(0);
    await heading(page, 'Ready to submit', 45_000);
    await fitsWidth(page, zoomed.width);
    await press(page, 'Submit');
    await heading(page, 'Thank you');
    await fitsWidth(page, zoomed.width);
    await waitFor(async () => (await statusOf(v.id)) === 'approved', 20_000, 'the verdict');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a person who pauses mid-flow continues with a renewed link where they stopped; the old link no longer opens', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'document' }, { type: 'face_match' }] });
    const first = await open(pageUrl(v.id, v.client_token!));
    await agree(first.page);
    await heading(first.page, 'Your identity document');
    await first.page.click('input[value=passport]');
    await clickButton(first.page, 'Continue');
    await useFile(first.page, files['document.png']!);
    await heading(first.page, 'A photo of your face');
    await first.context.close();

    const renewed = await server.request(`/v1/verifications/${v.id}/client_token`, { token: sandbox, body: {} });
    expect(renewed.status).toBe(200);
    const old = await open(pageUrl(v.id, v.client_token!));
    await heading(old.page, 'This link is not valid');
    await old.context.close();
    const resumed = await open(pageUrl(v.id, renewed.body.client_token));
    await heading(resumed.page, 'A photo of your face');
    await useFile(resumed.page, files['selfie.png']!);
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

  it('before its script runs, the page already says what it is (a screenshot with no time budget shows more than "Loading…")', async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    await page.goto(`${server.url}/verify/vs_anything`, { waitUntil: 'domcontentloaded' });
    const text = await page.$eval('#screen', (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
    expect(text).toContain('Identity verification');
    expect(text).toContain('identity document and your face');
    await context.close();
  });

  it('on a phone-sized viewport in German, with the flow\'s branding, nothing overflows and every step reads in German', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: { name: `Branded ${Date.now()}`, steps: [{ type: 'email' }, { type: 'document' }, { type: 'face_match' }, { type: 'liveness' }], accepted_document_types: ['id_card', 'passport'], brand_name: 'Acme Bank', accent_color: '#0F766E', privacy_url: 'https://acme.example/datenschutz' },
    });
    expect(flow.status).toBe(201);
    const back = `${receiver.url}/zurueck`;
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id, locale: 'de-DE', return_url: back });
    const { page, context } = await open(pageUrl(v.id, v.client_token!), PHONE);
    await heading(page, 'Bevor Sie beginnen');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('de');
    expect(await page.$eval('.brand-name', (el) => el.textContent)).toBe('Acme Bank');
    expect(await page.$eval('button.primary', (el) => getComputedStyle(el).backgroundColor)).toBe('rgb(15, 118, 110)');
    await screenshot(page, 'phone-0-consent');
    await expectAccessible(page, 'phone consent');
    await clickButton(page, 'Ich stimme zu');
    await heading(page, 'Ihre E-Mail-Adresse');
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
    await heading(page, 'Foto prüfen');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Ist der ganze Text lesbar?');
    await screenshot(page, 'phone-4b-document-review');
    await clickButton(page, 'Dieses Foto verwenden');
    await heading(page, 'Rückseite: Personalausweis');
    await useFile(page, files['document.png']!, 'Foto prüfen', 'Dieses Foto verwenden');
    await heading(page, 'Ein Foto Ihres Gesichts');
    await screenshot(page, 'phone-5-selfie');
    await useFile(page, files['selfie.png']!, 'Foto prüfen', 'Dieses Foto verwenden');
    await heading(page, 'Ein kurzes Video Ihres Gesichts');
    await clickButton(page, 'Kamera öffnen');
    await cameraLive(page);
    await clickButton(page, 'Aufnahme starten');
    await page.waitForFunction(() => /Sekunden/.test(document.querySelector('#screen [role=status]')?.textContent ?? ''), { timeout: 5_000 });
    await screenshot(page, 'phone-6-liveness');
    await heading(page, 'Bereit zum Absenden', 45_000);
    await screenshot(page, 'phone-7-submit');
    await clickButton(page, 'Absenden');
    await heading(page, 'Vielen Dank');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Acme Bank teilt Ihnen das Ergebnis mit');
    expect(await page.$eval('#screen a', (el) => el.textContent)).toBe('Zurück zu Acme Bank');
    await clickButton(page, 'Auf dieser Seite bleiben');
    await screenshot(page, 'phone-8-result');
    expect(await statusOf(v.id)).not.toBe('pending');
    await context.close();
  });

  it('a flow preview opens the same page in preview mode and records nothing', async () => {
    const flow = await server.request('/v1/flows', { token: sandbox, body: { name: `Preview ${Date.now()}`, steps: [{ type: 'email' }, { type: 'face_match' }] } });
    const preview = await server.request(`/v1/flows/${flow.body.id}/preview`, { token: sandbox, body: {} });
    const sent = mail.received.length;
    const { page, context } = await open(`${server.url}${new URL(preview.body.url).pathname}${new URL(preview.body.url).hash}`);
    await agree(page);
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
    await useFile(page, files['document.png']!);
    await heading(page, 'A photo of your face');
    await useFile(page, files['selfie.png']!);
    await heading(page, 'Ready to submit');
    await clickButton(page, 'Submit');
    await heading(page, 'Thank you');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Nothing was recorded');
    expect(mail.received.length).toBe(sent);
    expect(await server.sql('select status, consent from verifications where id = $1', [preview.body.id])).toEqual([{ status: 'pending', consent: null }]);
    expect(await server.sql('select id from uploads where verification_id = $1', [preview.body.id])).toEqual([]);
    await context.close();
  });
});
