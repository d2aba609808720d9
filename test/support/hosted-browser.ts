import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { startEmbeddedS3, type EmbeddedStore } from '../../src/embedded/s3.js';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { withTestAccount } from './account.js';
import { launchBrowser } from './browser.js';
import { pngImage } from './images.js';
import { startMailServer, type MailServer } from './mail.js';
import { startReceiver, type Receiver } from './receiver.js';
import type { TestServer } from './test-server.js';

/**
 * The hosted page's browser tests' harness: headless Chromium from npm against the real
 * service, store (with CORS) and SMTP server, and the helpers that drive the page. Each test
 * file that calls useHostedBrowser() gets its own (jest gives every file its own modules).
 * Screenshots go to $HOSTED_SCREENSHOTS when it is set (docs/hosted-page holds the committed ones).
 */
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const shots = process.env.HOSTED_SCREENSHOTS;
// Page code run by page.evaluate: typed loosely here (the project's lib has no DOM types).
declare const document: any;
declare const window: any;

export const PHONE = { width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true };

let store: EmbeddedStore;
/** The embedded store answers only requests signed with its own key pair. */
const STORE_KEYS = { accessKeyId: 'IDVHOSTEDPAGETEST', secretAccessKey: 'hosted-page-test-secret' };
let mail: MailServer;
let receiver: Receiver;
let browser: Browser;
let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
const files: Record<string, string> = {};

export interface HostedBrowser {
  server: TestServer;
  account: BootstrapResult;
  sandbox: string;
  mail: MailServer;
  receiver: Receiver;
  browser: Browser;
  files: Record<string, string>;
}

/** Starts the harness around the calling test file and hands its parts to `use` once they are up. */
export function useHostedBrowser(use: (harness: HostedBrowser) => unknown): void {
  beforeAll(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    // The embedded store as `npm start` runs it, with CORS for the page's origin (any local test port).
    store = await startEmbeddedS3(
      fs.mkdtempSync(path.join(os.tmpdir(), 'hosted-store-')),
      'idv-hosted',
      STORE_KEYS,
      0,
      ['http://127.0.0.1:*'],
    );
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
    (t) => {
      ({ server, account, sandbox } = t);
    },
    () => ({
      env: {
        SMTP_URL: mail.url,
        S3_ENDPOINT: store.endpoint,
        S3_BUCKET: 'idv-hosted',
        S3_ACCESS_KEY_ID: STORE_KEYS.accessKeyId,
        S3_SECRET_ACCESS_KEY: STORE_KEYS.secretAccessKey,
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_RETRY_SCHEDULE: '1,1,1',
      },
    }),
  );
  beforeAll(() => use({ server, account, sandbox, mail, receiver, browser, files }));
}

export interface Opened {
  page: Page;
  context: BrowserContext;
  /** Console errors and CSP reports seen by the page. */
  problems: string[];
}

export async function open(
  url: string,
  viewport: Parameters<Page['setViewport']>[0] = { width: 1280, height: 900 },
  before?: (page: Page) => Promise<unknown>,
): Promise<Opened> {
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
export async function heading(page: Page, text: string, timeout = 15_000) {
  try {
    await page.waitForFunction((want) => document.querySelector('#screen h1')?.textContent === want, { timeout }, text);
    // A missing value never shows as a word on the screen.
    expect(await page.$eval('#screen', (el) => el.textContent ?? '')).not.toMatch(/\b(null|undefined)\b/);
  } catch (error) {
    const shown = await page
      .$eval('#screen', (el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim())
      .catch(() => '(no #screen)');
    throw new Error(`waited ${timeout} ms for the heading "${text}"; the screen shows: ${shown.slice(0, 500)}`, {
      cause: error,
    });
  }
}

/** The camera preview shows frames: what an applicant sees before pressing record. */
export const cameraLive = (page: Page) =>
  page.waitForFunction(() => (document.querySelector('video.camera')?.readyState ?? 0) >= 2, { timeout: 15_000 });

export async function clickButton(page: Page, text: string) {
  const button = await page.waitForSelector(`::-p-xpath(//button[normalize-space(.)="${text}"])`, { timeout: 15_000 });
  await button!.click();
}

export async function chooseFile(page: Page, file: string) {
  const input = await page.waitForSelector('#screen input[type=file]');
  await input!.uploadFile(file);
}

/** axe-core in the page: no violation of any impact. */
export async function expectAccessible(page: Page, where: string) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map(
      (v: any) => `${v.impact} ${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`,
    );
  });
  expect({ where, violations }).toEqual({ where, violations: [] });
}

/** The consent step, first of every walk: the explicit "I agree". */
export async function agree(page: Page, title = 'Before you start', button = 'I agree') {
  await heading(page, title);
  await clickButton(page, button);
}

/**
 * A passport session walked from consent to the liveness step: the consent, the document type,
 * the passport's front and the selfie, each used as chosen; ends on "Follow the prompts".
 */
export async function walkToLivenessPrompts(page: Page, documentFile: string, selfieFile: string) {
  await agree(page);
  await heading(page, 'Your identity document');
  await page.click('input[value=passport]');
  await clickButton(page, 'Continue');
  await heading(page, 'Front of your passport');
  await useFile(page, documentFile);
  await heading(page, 'A photo of your face');
  await useFile(page, selfieFile);
  await heading(page, 'Follow the prompts');
}

/** A file chosen for a photo step, looked at on its review screen, then used. */
export async function useFile(page: Page, file: string, review = 'Check your photo', use = 'Use this photo') {
  await chooseFile(page, file);
  await heading(page, review);
  // The preview decodes after the heading shows and then pushes the buttons down: a click aimed
  // before that lands where the button was (a lost click under load), so it waits for the image.
  await page.waitForFunction(
    () => {
      const preview = document.querySelector('#screen img.preview') as { complete: boolean } | null;
      return !preview || preview.complete;
    },
    { timeout: 15_000 },
  );
  await clickButton(page, use);
}

/** Keyboard only: Tab until the named control has focus (at most 40 presses), then Enter. */
export async function press(page: Page, text: string) {
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
export const fitsWidth = async (page: Page, width: number) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
export const activityOf = async (id: string) =>
  server.sql<{ action: string; surface: string }>('select action, surface from activity_events where target_id = $1', [
    id,
  ]);

export async function screenshot(page: Page, name: string) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`) as `${string}.png`, fullPage: true });
}

export const pageUrl = (id: string, token: string) => `${server.url}/verify/${id}#token=${token}`;
export const statusOf = async (id: string) =>
  (await server.request(`/v1/verifications/${id}`, { token: sandbox })).body.status as string;

export async function emailStep(page: Page, email: string, shotPrefix?: string) {
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
