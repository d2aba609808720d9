import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { systemFork } from '../../src/orm.js';
import { createMember, type BootstrapResult, type MemberPermission } from '../../src/services/access/index.js';
import { withTestAccount } from '../support/account.js';
import { launchBrowser } from '../support/browser.js';
import { createVerification } from '../support/factories.js';
import { pngImage } from '../support/images.js';
import type { TestServer } from '../support/test-server.js';
import { waitFor } from '../support/wait.js';

/**
 * The back-office app (issue 29) in headless Chromium against the real service: sign in, work a
 * case, export, invite, and what a seat without a permission is offered. axe-core on every
 * screen. Screenshots go to $CONSOLE_SCREENSHOTS when set (docs/console holds the committed ones).
 */
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const shots = process.env.CONSOLE_SCREENSHOTS;
declare const document: any;
declare const window: any;

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true };
const PASSWORD = 'a-long-enough-password';

let browser: Browser;
let server: TestServer;
let account: BootstrapResult;
let sandbox: string;

beforeAll(async () => {
  // The app is built by `npm run build` (start) and `prepare` (install); build it here when missing.
  if (!fs.existsSync('console/dist/index.html'))
    execFileSync('npm', ['run', 'console:build', '--silent'], { stdio: 'inherit' });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});
// Each test's pages poll the queue and keep presence alive: close them when it ends.
const contexts: BrowserContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
});
withTestAccount((t) => ({ server, account, sandbox } = t), {
  env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
});

async function newPage(
  viewport: Parameters<Page['setViewport']>[0] = DESKTOP,
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.createBrowserContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.setViewport(viewport);
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  return { page, problems };
}

const byText = (tag: string, text: string) => `::-p-xpath(//${tag}[normalize-space(.)="${text}"])`;

async function click(page: Page, tag: string, text: string) {
  const element = await page.waitForSelector(byText(tag, text), { visible: true, timeout: 20_000 });
  await element!.click();
}

/** Waits for text anywhere on the page; fails with what the page shows instead. */
async function see(page: Page, text: string, timeout = 20_000) {
  try {
    await page.waitForFunction((want: string) => document.body.innerText.includes(want), { timeout }, text);
  } catch (error) {
    const shown = await page.evaluate(() => document.body.innerText.replace(/\s+/g, ' ').slice(0, 600));
    throw new Error(`waited for "${text}"; the page shows: ${shown}`, { cause: error });
  }
}

/** Clicks a dialog's button and waits until the dialog (and its fading overlay) is gone. */
async function confirm(page: Page, text: string) {
  await click(page, 'button', text);
  await page.waitForFunction(() => !document.querySelector('[role="dialog"], .mantine-Modal-overlay'), {
    timeout: 20_000,
  });
}

async function typeInto(page: Page, label: string, text: string) {
  const id = await page.waitForFunction(
    (want: string) =>
      [...document.querySelectorAll('label')]
        .find((l: any) => l.textContent.replace('*', '').trim() === want)
        ?.getAttribute('for'),
    { timeout: 20_000 },
    label,
  );
  await page.type(`[id="${await id.jsonValue()}"]`, text);
}

/** axe-core in the page: zero serious or critical violations (`skip`: rules left out, each said why at the call). */
async function expectAccessible(page: Page, where: string, skip: string[] = []) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async (rules: string[]) => {
    const options = {
      resultTypes: ['violations'],
      rules: Object.fromEntries(rules.map((r) => [r, { enabled: false }])),
    };
    const result = await window.axe.run(document, options);
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  }, skip);
  expect({ where, violations }).toEqual({ where, violations: [] });
}

async function screenshot(page: Page, name: string) {
  if (!shots) return;
  fs.mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`) as `${string}.png` });
}

async function signIn(page: Page, email: string, password: string) {
  await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
  await typeInto(page, 'Email', email);
  await typeInto(page, 'Password', password);
  await click(page, 'button', 'Sign in');
  await page.waitForSelector('nav[aria-label="Sections"]', { timeout: 20_000 });
}

/** A sandbox case in the queue with a document and a selfie uploaded (moved onto it: a forced review runs before any upload). */
async function reviewCase(): Promise<{ verificationId: string; reviewId: string }> {
  const created = await createVerification(server, account, 'sandbox', { sandbox: { outcome: 'review' } });
  const carrier = await createVerification(server, account, 'sandbox');
  for (const [kind, side, bytes] of [
    ['document', 'front', pngImage(1000, 700, 150, 1)],
    ['selfie', null, pngImage(720, 960, 140, 2)],
  ] as const) {
    const upload = await server.request(`/v1/verifications/${carrier.id}/uploads`, {
      token: sandbox,
      body: { kind, ...(side ? { side } : {}), content_type: 'image/png' },
    });
    expect(upload.status).toBe(201);
    const put = await fetch(upload.body.upload_url, {
      method: 'PUT',
      body: new Uint8Array(bytes),
      headers: { 'content-type': 'image/png' },
    });
    expect(put.status).toBe(200);
    expect(
      (
        await server.request(`/v1/verifications/${carrier.id}/uploads/${upload.body.upload_id}/complete`, {
          token: sandbox,
          method: 'POST',
        })
      ).status,
    ).toBe(200);
  }
  await server.sql('update uploads set verification_id = $1 where verification_id = $2', [created.id, carrier.id]);
  const reviewId = await waitFor(
    async () => {
      const rows = await server.sql<{ id: string }>('select id from manual_reviews where verification_id = $1', [
        created.id,
      ]);
      return rows[0]?.id;
    },
    30_000,
    'the case to reach the queue',
  );
  return { verificationId: created.id, reviewId };
}

async function member(
  permissions: MemberPermission[],
  environments: ('sandbox' | 'live')[] = ['sandbox'],
): Promise<string> {
  const email = `console-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await createMember(systemFork(server.runtime.orm), {
    merchantId: account.merchant.id,
    email,
    name: `Reviewer ${email.slice(8, 14)}`,
    password: PASSWORD,
    permissions,
    environments,
  });
  return email;
}

describe('the console in Chromium', () => {
  it('a reviewer signs in, takes a case from the queue, looks at the evidence, reveals, decides, and sees the decision and the reveal in the timeline', async () => {
    const { reviewId, verificationId } = await reviewCase();
    const { page, problems } = await newPage();
    await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(byText('button', 'Sign in'));
    await expectAccessible(page, 'sign in');
    await screenshot(page, 'sign-in-desktop');
    await signIn(page, account.member.email, account.member.password);

    await see(page, 'Waiting since');
    const link = await page.waitForSelector(`a[href="/console/reviews/${reviewId}"]`);
    await expectAccessible(page, 'reviews');
    await link!.click();

    await click(page, 'button', 'Claim');
    await see(page, 'Claimed by you');
    await click(page, 'button', 'Show evidence');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.evidence-frame img').length === 2 &&
        [...document.querySelectorAll('.evidence-frame img')].every((i: any) => i.complete && i.naturalWidth > 0),
      { timeout: 20_000 },
    );
    await page.click('button[aria-label="Zoom in document (front)"]');
    await page.click('button[aria-label="Rotate document (front)"]');
    expect(
      await page.$eval('img[alt="document (front)"]', (img: any) => [img.dataset.zoom, img.dataset.rotation]),
    ).toEqual(['1.25', '90']);

    await click(page, 'button', 'Reveal identity');
    await page.waitForSelector('table[aria-label="Identity fields"]');
    await see(page, 'Revealed identity');
    await expectAccessible(page, 'case');

    await click(page, 'button', 'Approve');
    await typeInto(page, 'Notes', 'Document checked against the selfie.');
    await typeInto(page, 'Message to the applicant', 'Thank you for your patience.');
    await confirm(page, 'Confirm approval');
    await see(page, 'Decision: approve');
    await see(page, 'review approved');
    // The reveal left the page's memory with the page: back in the queue nothing of it is shown.
    expect(await page.evaluate(() => document.body.innerText)).toContain('Revealed identity');
    await click(page, 'a', '← Reviews');
    await see(page, 'Waiting since');
    expect(await page.$('table[aria-label="Identity fields"]')).toBeNull();

    const decided = await server.sql<{ status: string }>('select status from verifications where id = $1', [
      verificationId,
    ]);
    expect(decided[0]!.status).toBe('approved');
    const audit = await server.sql<{ action: string }>(
      'select action from audit_events where verification_id = $1 order by created_at',
      [verificationId],
    );
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['evidence.viewed', 'identity.revealed']));
    // Identity never reaches the URL or the title, and nothing is kept in storage.
    expect(page.url()).not.toContain('@');
    expect(
      await page.evaluate(() => [window.localStorage.length, window.sessionStorage.length, document.cookie]),
    ).toEqual([0, 0, '']);
    expect(problems).toEqual([]);
  }, 180_000);

  it('a reviewer works a case by keyboard alone: sign in, reach the case, claim (c), approve (a) and confirm', async () => {
    const { reviewId, verificationId } = await reviewCase();
    const { page, problems } = await newPage();
    await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector(byText('button', 'Sign in'));
    /** Presses Tab until the focused element matches, like a person moving through the page. */
    const tabTo = async (matches: (el: { href: string; text: string }) => boolean, what: string) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const el = document.activeElement as any;
          return { href: el?.getAttribute?.('href') ?? '', text: (el?.innerText ?? el?.value ?? '').trim() };
        });
        if (matches(focused)) return;
      }
      throw new Error(`Tab never reached ${what}`);
    };
    await tabTo(() => true, 'the first field');
    await page.keyboard.type(account.member.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(account.member.password);
    await page.keyboard.press('Enter');
    await page.waitForSelector('nav[aria-label="Sections"]', { timeout: 20_000 });
    await see(page, 'Waiting since');
    await tabTo((el) => el.href === `/console/reviews/${reviewId}`, 'the case in the queue');
    await page.keyboard.press('Enter');
    await page.waitForSelector(byText('button', 'Claim'), { visible: true, timeout: 20_000 });
    await page.keyboard.press('c');
    await see(page, 'Claimed by you');
    await page.keyboard.press('a');
    await page.waitForSelector('[role="dialog"]', { timeout: 20_000 });
    await tabTo((el) => el.text === 'Confirm approval', 'Confirm approval');
    await page.keyboard.press('Enter');
    await see(page, 'Decision: approve');
    const decided = await server.sql<{ status: string }>('select status from verifications where id = $1', [
      verificationId,
    ]);
    expect(decided[0]!.status).toBe('approved');
    expect(problems).toEqual([]);
  }, 180_000);

  it('an identity edit over a stale version is explained and saves nothing; read again, it saves', async () => {
    const { reviewId, verificationId } = await reviewCase();
    const { page } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await (await page.waitForSelector(`a[href="/console/reviews/${reviewId}"]`))!.click();
    await click(page, 'button', 'Reveal identity');
    await page.waitForSelector('table[aria-label="Identity fields"][data-version="1"]');
    await click(page, 'button', 'Edit identity');
    // A colleague saves first, through the API.
    const other = await server.request(`/v1/console/verifications/${verificationId}/identity`, {
      token: account.member.session_token,
      method: 'PATCH',
      body: { fields: { first_name: 'Grace' }, version: 1 },
    });
    expect(other.status).toBe(200);
    await page.click('input[aria-label="Last name"]', { count: 3 });
    await page.type('input[aria-label="Last name"]', 'Hopper');
    await click(page, 'button', 'Save identity');
    await see(page, 'Version conflict');
    await see(page, 'it is now version 2');
    const [row] = await server.sql<{ identity_version: number }>(
      'select identity_version from verifications where id = $1',
      [verificationId],
    );
    expect(row!.identity_version).toBe(2);
    await click(page, 'button', 'Cancel');
    await click(page, 'button', 'Reveal identity');
    await page.waitForSelector('table[aria-label="Identity fields"][data-version="2"]');
    await click(page, 'button', 'Edit identity');
    await page.click('input[aria-label="Last name"]', { count: 3 });
    await page.type('input[aria-label="Last name"]', 'Hopper');
    await click(page, 'button', 'Save identity');
    await page.waitForSelector('table[aria-label="Identity fields"][data-version="3"]');
    await see(page, 'Hopper');
    await see(page, 'Edited identity');
  }, 180_000);

  it('a reviewer escalates a case and a member holding reviews.resolve_escalation returns it', async () => {
    const { reviewId } = await reviewCase();
    const { page } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await (await page.waitForSelector(`a[href="/console/reviews/${reviewId}"]`))!.click();
    await click(page, 'button', 'Claim');
    await see(page, 'Claimed by you');
    await click(page, 'button', 'Escalate');
    await typeInto(page, 'Reason', 'The selfie looks printed.');
    await confirm(page, 'Confirm escalation');
    await see(page, 'Escalated.');
    await click(page, 'button', 'Return');
    await typeInto(page, 'Note for the reviewer', 'Looks fine to me; decide it.');
    await confirm(page, 'Confirm return');
    await see(page, 'Returned to the queue.');
    const rows = await server.sql<{ status: string }>('select status from manual_reviews where id = $1', [reviewId]);
    expect(rows[0]!.status).toBe('queued');
    await see(page, 'Escalation returned');
  }, 180_000);

  it('finds verifications by email and creation date, and opens one by reference; the email never reaches the URL', async () => {
    const email = `found-${Date.now()}@example.com`;
    const wanted = await createVerification(server, account, 'sandbox', {
      applicant: { email },
      sandbox: { outcome: 'pending' },
    });
    const { page } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await click(page, 'a', 'Verifications');
    await typeInto(page, 'Email', email);
    await click(page, 'button', 'Search');
    await page.waitForFunction(
      (id: string) =>
        document.querySelectorAll('table[aria-label="Verifications"] tbody a').length === 1 &&
        document.querySelector(`a[href="/console/verifications/${id}"]`),
      { timeout: 20_000 },
      wanted.id,
    );
    expect(page.url()).not.toContain('found-');
    // A day range that ends yesterday finds nothing; one that holds today finds it again.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const setDate = (label: string, value: string) =>
      page.evaluate(
        (want: string, v: string) => {
          const input = ([...document.querySelectorAll('label')] as any[]).find(
            (l) => l.textContent.trim() === want,
          ).control;
          const setter: any = Object.getOwnPropertyDescriptor(window.HTMLInputElement.prototype, 'value')!.set;
          setter.call(input, v);
          input.dispatchEvent(new window.Event('input', { bubbles: true }));
        },
        label,
        value,
      );
    await setDate('Created until', yesterday);
    await click(page, 'button', 'Search');
    await see(page, 'No verifications match.');
    await setDate('Created until', '');
    await setDate('Created from', new Date().toISOString().slice(0, 10));
    await click(page, 'button', 'Search');
    await page.waitForSelector(`a[href="/console/verifications/${wanted.id}"]`);
    await typeInto(page, 'Reference', wanted.id);
    await click(page, 'button', 'Search');
    await see(page, 'Identity version');
    expect(page.url()).toBe(`${server.url}/console/verifications/${wanted.id}`);
  }, 180_000);

  it('exports verifications as CSV from Reporting', async () => {
    const exported = await createVerification(server, account, 'sandbox');
    const { page } = await newPage();
    const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'console-csv-'));
    const cdp = await page.createCDPSession();
    await cdp.send('Page.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await signIn(page, account.member.email, account.member.password);
    await click(page, 'a', 'Reporting');
    await see(page, 'Daily outcomes');
    await page.waitForSelector('.recharts-surface');
    await expectAccessible(page, 'reporting');
    await click(page, 'button', 'Export verifications CSV');
    await see(page, 'Exported verifications');
    const file = await waitFor(
      async () => fs.readdirSync(downloads).find((f) => f.endsWith('.csv')),
      20_000,
      'the CSV download',
    );
    const csv = fs.readFileSync(path.join(downloads, file), 'utf8');
    expect(csv.split('\n')[0]).toContain('id');
    expect(csv).toContain(exported.id);
    const audit = await server.sql<{ row_count: number }>(
      `select row_count from audit_events where action = 'export.verifications' and member_id = $1`,
      [account.member.id],
    );
    expect(audit.length).toBe(1);
  }, 180_000);

  it('invites a member, whose one-time password signs in', async () => {
    const { page } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await click(page, 'a', 'Team');
    await see(page, 'Permissions');
    await expectAccessible(page, 'team');
    await click(page, 'button', 'Invite member');
    const email = `invited-${Date.now()}@example.com`;
    await typeInto(page, 'Member email', email);
    await typeInto(page, 'Name', 'Invited Reviewer');
    await click(page, 'button', 'Send invitation');
    const shown = await page.waitForSelector('[data-testid="one-time-password"]');
    const password = await shown!.evaluate((el: any) => el.textContent);
    expect(password.length).toBeGreaterThan(10);
    const second = await newPage();
    await signIn(second.page, email, password);
    await see(second.page, 'Invited Reviewer');
  }, 180_000);

  it('a member without a permission is not offered the action', async () => {
    const { reviewId } = await reviewCase();
    const { page } = await newPage();
    await signIn(page, await member([]), PASSWORD);
    const nav = await page.$$eval('nav[aria-label="Sections"] a', (links: any[]) => links.map((a) => a.textContent));
    expect(nav).toEqual(['Reviews', 'Verifications', 'Reporting', 'Team', 'Settings', 'Audit', 'GraphiQL']);
    expect(await page.$('[aria-label="Environment"]')).toBeNull();
    await (await page.waitForSelector(`a[href="/console/reviews/${reviewId}"]`))!.click();
    await see(page, 'Checks');
    const buttons = await page.$$eval('button', (all: any[]) => all.map((b) => b.textContent.trim()));
    expect(buttons).toEqual(expect.arrayContaining(['Claim', 'Approve', 'Reject', 'Escalate']));
    for (const hidden of ['Reveal identity', 'Show evidence', 'Assign', 'Return'])
      expect(buttons).not.toContain(hidden);
    await click(page, 'a', 'Reporting');
    await see(page, 'Daily outcomes');
    expect(await page.$(byText('button', 'Export verifications CSV'))).toBeNull();
    await click(page, 'a', 'Team');
    await see(page, 'Permissions');
    expect(await page.$(byText('button', 'Invite member'))).toBeNull();
  }, 180_000);

  it('settings: a new API key and a webhook endpoint show their secret once; the key is revoked, the secret rotated, a test sent', async () => {
    const { page } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await click(page, 'a', 'Settings');
    await see(page, 'Review policy');
    await typeInto(page, 'Key name', 'Console test key');
    await click(page, 'button', 'Create key');
    await see(page, 'Secret key, shown once');
    expect(await page.evaluate(() => document.body.innerText)).toMatch(/sk_test_[0-9A-Za-z]+/);
    await (await page.waitForSelector('button[aria-label="Revoke Console test key"]'))!.click();
    await waitFor(
      async () =>
        (await server.sql<{ status: string }>(`select status from api_keys where name = 'Console test key'`))[0]
          ?.status === 'revoked',
      20_000,
      'the key to be revoked',
    );

    await typeInto(page, 'Endpoint URL', 'http://127.0.0.1:9/hooks');
    await click(page, 'button', 'Create endpoint');
    await see(page, 'Signing secret, shown once');
    const first = await page.evaluate(() => /whsec_\S+/.exec(document.body.innerText)?.[0]);
    await click(page, 'button', 'Rotate secret');
    await page.waitForFunction(
      (old: string | undefined) => /whsec_\S+/.exec(document.body.innerText)?.[0] !== old,
      {},
      first,
    );
    await click(page, 'button', 'Send test');
    await see(page, 'queued');
    await expectAccessible(page, 'settings with secrets');
  }, 180_000);

  it('settings: an owner creates a flow with two steps, renames it and previews it on the hosted page; an empty draft saves but has nothing to preview; a member without settings.manage only reads the list', async () => {
    const { page, problems } = await newPage();
    await signIn(page, account.member.email, account.member.password);
    await click(page, 'a', 'Settings');
    await see(page, 'Review policy');
    await click(page, 'button', 'New flow');
    await typeInto(page, 'Flow name', 'Console flow');
    await click(page, 'button', 'Add step');
    await click(page, 'button', 'Add step');
    await page.waitForSelector('button[aria-label="Remove step 2 (Liveness)"]', { visible: true });
    await typeInto(page, 'Brand name', 'Acme');
    await expectAccessible(page, 'flow editor');
    await page.$eval('section[aria-label="Flow editor"]', (editor: any) => editor.scrollIntoView());
    await screenshot(page, 'settings-flow-editor');
    await click(page, 'button', 'Save flow');
    await see(page, 'Flow saved.');
    await see(page, 'Edit flow: Console flow');
    await see(page, 'document → liveness');

    // Rename: the save carries the version read, which the create answered.
    await typeInto(page, 'Flow name', ' renamed');
    await click(page, 'button', 'Save flow');
    const row = await waitFor(
      async () =>
        (
          await server.sql<{ name: string; brand_name: string }>(
            `select name, brand_name from flows where name = 'Console flow renamed'`,
          )
        )[0],
      20_000,
      'the renamed flow',
    );
    expect(row).toMatchObject({ name: 'Console flow renamed', brand_name: 'Acme' });
    await page.waitForSelector('button[aria-label="Edit Console flow renamed"]', { visible: true });

    // Preview opens the hosted page in a new tab.
    const opened = page
      .browserContext()
      .waitForTarget((target) => target.url().includes('/verify/'), { timeout: 20_000 });
    await click(page, 'button', 'Preview');
    const target = await opened;
    // The test service's publicUrl is the configured one, not the test port: the path and the token are what count.
    expect(new URL(target.url()).pathname).toMatch(/^\/verify\/vs_/);
    expect(new URL(target.url()).hash).toMatch(/^#token=/);
    await see(page, 'Preview opened in a new tab.');
    await (await target.page())?.close();

    // A flow with no steps is a draft: it saves, and its preview is explained.
    await click(page, 'button', 'Close editor');
    await click(page, 'button', 'New flow');
    await typeInto(page, 'Flow name', 'Empty draft');
    await click(page, 'button', 'Save flow');
    await see(page, 'Edit flow: Empty draft');
    await click(page, 'button', 'Preview');
    await see(page, 'This flow has no steps yet, so there is nothing to preview.');
    expect(problems.filter((p) => !/status of (400|409|422)/.test(p))).toEqual([]);

    const { page: reader } = await newPage();
    await signIn(reader, await member([]), PASSWORD);
    await click(reader, 'a', 'Settings');
    await see(reader, 'Console flow renamed');
    expect(await reader.$(byText('button', 'New flow'))).toBeNull();
    expect(await reader.$('button[aria-label^="Edit "]')).toBeNull();
    expect(await reader.$('button[aria-label^="Preview "]')).toBeNull();
  }, 180_000);

  it('signs out after 15 minutes without activity (the clock sped up) and revokes the session', async () => {
    const { page } = await newPage();
    // Timers of 15 minutes or more fire after one second; everything else keeps its delay.
    await page.evaluateOnNewDocument(() => {
      const original = window.setTimeout;
      window.setTimeout = (handler: unknown, ms?: number, ...rest: unknown[]) =>
        original(handler, (ms ?? 0) >= 15 * 60_000 ? 1000 : ms, ...rest);
    });
    const email = await member([]);
    await signIn(page, email, PASSWORD);
    await see(page, 'You were signed out after 15 minutes without activity.');
    await page.waitForSelector(byText('button', 'Sign in'));
    const sessions = await waitFor(
      async () => {
        const rows = await server.sql<{ revoked_at: Date | null }>(
          'select s.revoked_at from member_sessions s join members m on m.id = s.member_id where m.email = $1',
          [email],
        );
        return rows.length === 1 && rows[0]!.revoked_at ? rows : undefined;
      },
      10_000,
      'the session to be revoked',
    );
    expect(sessions).toHaveLength(1);
  }, 120_000);

  it('every screen has no serious or critical axe violations, on a desktop and on a phone', async () => {
    const { reviewId, verificationId } = await reviewCase();
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      const { page, problems } = await newPage(viewport);
      await page.goto(`${server.url}/console`, { waitUntil: 'domcontentloaded' });
      await page.waitForSelector(byText('button', 'Sign in'));
      await screenshot(page, `sign-in-${size}`);
      await signIn(page, account.member.email, account.member.password);
      const screens: [string, string, string][] = [
        ['reviews', '/console/reviews', 'Waiting since'],
        ['case', `/console/reviews/${reviewId}`, 'Timeline'],
        ['verifications', '/console/verifications', 'Reference'],
        ['verification', `/console/verifications/${verificationId}`, 'Identity version'],
        ['reporting', '/console/reporting', 'Daily outcomes'],
        ['audit', '/console/audit', 'Case (verification id)'],
        ['team', '/console/team', 'Permissions'],
        ['logs', '/console/logs', 'Request log'],
        ['settings', '/console/settings', 'Review policy'],
        ['graphiql', '/graphql', 'GraphiQL'],
      ];
      for (const [name, to, text] of screens) {
        // Client-side navigation keeps the in-memory session, as the nav links do.
        await page.evaluate((target: string) => {
          window.history.pushState(null, '', target);
          window.dispatchEvent(new window.PopStateEvent('popstate'));
        }, to);
        await see(page, text);
        if (name === 'case') {
          await click(page, 'button', 'Show evidence');
          await page.waitForSelector('.evidence-frame img');
          await click(page, 'button', 'Reveal identity');
          await page.waitForSelector('table[aria-label="Identity fields"]');
        }
        if (name === 'reporting') await page.waitForSelector('.recharts-surface');
        if (name === 'graphiql') await page.waitForSelector('.graphiql-container', { timeout: 30_000 });
        await new Promise((r) => setTimeout(r, 300));
        // GraphiQL is the package's markup: its tab bar nests its close button in the tab
        // (nested-interactive), and on a phone CodeMirror's scrolling pane is not focusable.
        // Its contrast and editor labels are fixed (graphiql-a11y.css, Graphiql.tsx) and checked
        // on a desktop; those two are left to the package.
        if (name !== 'graphiql' || size === 'desktop')
          await expectAccessible(page, `${name} (${size})`, name === 'graphiql' ? ['nested-interactive'] : []);
        await screenshot(page, `${name}-${size}`);
      }
      expect(problems).toEqual([]);
    }
  }, 300_000);

  it('serves the app with a CSP without inline scripts, and GraphiQL at /graphql to a browser only', async () => {
    const shell = await fetch(`${server.url}/console/reviews`, { headers: { accept: 'text/html' } });
    expect(shell.status).toBe(200);
    const csp = shell.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    const html = await shell.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    const api = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { member { id } } }' }),
    });
    expect(api.status).toBe(401);
    // A sign-in through GraphQL reaches signIn alone: any other field in it is refused.
    const sneaky = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        operationName: 'SignIn',
        query:
          'mutation SignIn { signIn(email: "x@example.com", password: "nope") { token } } query Other { viewer { member { id } } }',
      }),
    });
    expect(((await sneaky.json()) as any).errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    const mixed = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operationName: 'SignIn', query: 'query SignIn { viewer { member { id } } }' }),
    });
    expect(((await mixed.json()) as any).errors[0].extensions.code).toBe('SESSION_MISSING');
    expect((await fetch(`${server.url}/console/assets/missing-abc.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/console/assets/%2e%2e`)).status).toBeLessThan(500);
    const root = await fetch(`${server.url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/console');
  });

  it('loads at most 350 KB of compressed JavaScript before the first screen (charts and GraphiQL come later)', async () => {
    const html = await (await fetch(`${server.url}/console`, { headers: { accept: 'text/html' } })).text();
    const initial = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(initial.length).toBeGreaterThan(0);
    let total = 0;
    for (const asset of initial) {
      const response = await fetch(`${server.url}${asset}`);
      expect(response.headers.get('cache-control')).toContain('immutable');
      total += zlib.gzipSync(Buffer.from(await response.arrayBuffer())).length;
    }
    expect(total).toBeLessThan(350 * 1024);
    expect(initial.some((a) => /Reporting|Graphiql|recharts|codemirror/i.test(a))).toBe(false);
  });
});
