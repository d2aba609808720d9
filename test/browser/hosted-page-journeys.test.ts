/**
 * The hosted page in Chromium (issue 30): consent declined, the return to the merchant, a
 * capture retaken from its review screen, the desktop-to-phone hand-off (two pages, one
 * session), and the whole walk by keyboard at 200% zoom with reduced motion.
 */
import { jest } from '@jest/globals';
import type { Page } from 'puppeteer-core';
import type { BootstrapResult } from '../../src/services/access/index.js';
import { createHostedSession } from '../support/hosted.js';
import {
  activityOf,
  agree,
  cameraLive,
  chooseFile,
  clickButton,
  expectAccessible,
  fitsWidth,
  heading,
  open,
  pageUrl,
  PHONE,
  press,
  screenshot,
  statusOf,
  useFile,
  useHostedBrowser,
} from '../support/hosted-browser.js';
import type { MailServer } from '../support/mail.js';
import type { Receiver } from '../support/receiver.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

// Page code run by page.evaluate: typed loosely here (the project's lib has no DOM types).
declare const document: any;
declare const location: any;
declare const navigator: any;

let server: TestServer;
let account: BootstrapResult;
let sandbox: string;
let mail: MailServer;
let receiver: Receiver;
let files: Record<string, string>;
// A walk drives a real browser through every step, a 3 s recording and the checks; on a machine
// shared with other work it can take well over the default minute.
jest.setTimeout(180_000);
useHostedBrowser((h) => ({ server, account, sandbox, mail, receiver, files } = h));

describe('the hosted page in Chromium: consent, return, capture review, hand-off, keyboard', () => {
  it('"I do not agree" ends the applicant\'s part: a page saying what happens next with the support link; pending; an activity row', async () => {
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: {
        name: `Decline ${Date.now()}`,
        steps: [{ type: 'document' }, { type: 'face_match' }],
        brand_name: 'Acme Bank',
        support_url: 'https://acme.example/help',
        privacy_url: 'https://acme.example/privacy',
      },
    });
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id });
    const { page, context, problems } = await open(pageUrl(v.id, v.client_token!));
    await heading(page, 'Before you start');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('Acme Bank is responsible for your data');
    expect(await page.$eval('#screen a', (el) => ({ href: el.getAttribute('href'), text: el.textContent }))).toEqual({
      href: 'https://acme.example/privacy',
      text: 'Privacy notice of Acme Bank',
    });
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
    const flow = await server.request('/v1/flows', {
      token: sandbox,
      body: {
        name: `Return ${Date.now()}`,
        steps: [{ type: 'document' }],
        accepted_document_types: ['passport'],
        brand_name: 'Acme Bank',
      },
    });
    const back = `${receiver.url}/back-from-kyc?order=7`;
    const v = await createHostedSession(server, account, { checks: undefined, flow: flow.body.id, return_url: back });
    // A return address in the page's own URL is ignored: only the key's is ever followed.
    const { page, context } = await open(
      `${server.url}/verify/${v.id}?return_url=https%3A%2F%2Fevil.example#token=${v.client_token}`,
    );
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
    expect(await page.$$eval('.hints li', (items) => items.map((li) => li.getAttribute('data-hint')))).toEqual(
      expect.arrayContaining(['small', 'dark']),
    );
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
    expect(await server.sql('select side, status from uploads where verification_id = $1', [v.id])).toEqual([
      { side: 'front', status: 'uploaded' },
    ]);

    // Back on every step: to the front, which can be kept, then forward again.
    await clickButton(page, 'Back');
    await heading(page, 'Front of your passport');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('You already sent this');
    await clickButton(page, 'Keep the one already sent');
    await heading(page, 'A photo of your face');

    // Back, step by step, to the consent, and withdraw it there.
    for (const title of ['Front of your passport', 'Your identity document', 'Before you start']) {
      await clickButton(page, 'Back');
      await heading(page, title);
    }
    await clickButton(page, 'I do not agree');
    await heading(page, 'You did not agree');
    expect(await page.$eval('#screen', (el) => el.textContent)).toContain('You withdrew your consent');
    expect((await server.request(`/v1/verifications/${v.id}`, { token: sandbox })).body).toMatchObject({
      status: 'pending',
      consent: null,
    });
    await context.close();
  });

  it('desktop without a camera continues on a phone: a QR code of the same link, and the desktop follows the phone to the end', async () => {
    const v = await createHostedSession(server, account, { checks: [{ type: 'document' }, { type: 'face_match' }] });
    const noCamera = (page: Page) =>
      page.evaluateOnNewDocument(() => {
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
    await desktop.page.waitForFunction(() => (document.querySelector('img.qr')?.naturalWidth ?? 0) > 0, {
      timeout: 10_000,
    });
    await screenshot(desktop.page, 'desktop-handoff');
    await expectAccessible(desktop.page, 'handoff');

    // The phone opens the link the QR code carries (test/hosted/hosted-api.test.ts checks the code encodes it).
    const phone = await open(pageUrl(v.id, v.client_token!), PHONE);
    await heading(phone.page, 'Your identity document');
    await phone.page.click('input[value=passport]');
    await clickButton(phone.page, 'Continue');
    await heading(phone.page, 'Front of your passport');
    // A phone is not offered a phone.
    expect(await phone.page.$eval('#screen', (el) => el.textContent)).not.toContain('Continue on your phone');
    await useFile(phone.page, files['document.png']!);
    await heading(phone.page, 'A photo of your face');
    await desktop.page.waitForFunction(
      () => /Document: done/.test(document.querySelector('.checklist')?.textContent ?? ''),
      { timeout: 15_000 },
    );
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
    const { page, context, problems } = await open(pageUrl(v.id, v.client_token!), zoomed, (p) =>
      p.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]),
    );
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
    for (const [title, next] of [
      ['Front of your passport', 'A photo of your face'],
      ['A photo of your face', 'Follow the prompts'],
    ] as const) {
      await heading(page, title);
      await press(page, 'Take a photo');
      await cameraLive(page);
      await fitsWidth(page, zoomed.width);
      if (title.startsWith('Front')) {
        // The document's outline sits wholly inside the camera's box, whichever side limits it.
        const fit = await page.evaluate(() => {
          const outer = document.querySelector('.viewfinder').getBoundingClientRect();
          const inner = document.querySelector('.outline.passport').getBoundingClientRect();
          return (
            inner.left >= outer.left &&
            inner.right <= outer.right &&
            inner.top >= outer.top &&
            inner.bottom <= outer.bottom &&
            inner.width > outer.width / 2
          );
        });
        expect(fit).toBe(true);
        await screenshot(page, 'zoom-200-document-camera');
      }
      await press(page, 'Take the photo');
      await heading(page, 'Check your photo');
      await fitsWidth(page, zoomed.width);
      await press(page, 'Use this photo');
      await heading(page, next);
    }
    // The liveness prompts: started by keyboard; the face's oval inside the camera's box; no animation.
    await press(page, 'Start');
    await page.waitForFunction(
      () => document.querySelector('#screen .prompt')?.textContent === 'Look straight at the camera',
      { timeout: 15_000 },
    );
    await cameraLive(page);
    await fitsWidth(page, zoomed.width);
    const oval = await page.evaluate(() => {
      const outer = document.querySelector('.viewfinder').getBoundingClientRect();
      const inner = document.querySelector('.face-oval').getBoundingClientRect();
      return (
        inner.left >= outer.left &&
        inner.right <= outer.right &&
        inner.top >= outer.top &&
        inner.bottom <= outer.bottom &&
        inner.height > outer.height / 2
      );
    });
    expect(oval).toBe(true);
    expect(await page.evaluate(() => document.getAnimations().length)).toBe(0);
    await page.waitForFunction(() => document.querySelector('#screen .viewfinder.capturing'), { timeout: 15_000 });
    expect(await page.evaluate(() => document.getAnimations().length)).toBe(0);
    await heading(page, 'Ready to submit', 60_000);
    await fitsWidth(page, zoomed.width);
    await press(page, 'Submit');
    await heading(page, 'Thank you');
    await fitsWidth(page, zoomed.width);
    await waitFor(async () => (await statusOf(v.id)) === 'approved', 20_000, 'the verdict');
    expect(problems).toEqual([]);
    await context.close();
  });
});
