import type { Browser } from 'puppeteer-core';
import { withTestServer } from '../support/account.js';
import { launchBrowser } from '../support/browser.js';
import type { TestServer } from '../support/test-server.js';

// Issue 31: the API reference is served rendered at /docs from the OpenAPI document, by a
// registry package, offline: no request leaves the service's origin, no inline script.

let server: TestServer;
withTestServer((s) => (server = s));

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => browser?.close());

describe('GET /docs', () => {
  it('answers an HTML page under a policy that allows scripts from this origin only', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const policy = res.headers.get('content-security-policy')!;
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(await res.text()).not.toMatch(/<script>(?!<)/);
    expect((await fetch(`${server.url}/docs/assets/../package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs/assets/index.html`)).status).toBe(404);
  });

  it('renders the /v1 operations in Chromium with every request kept on the service origin', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const violations: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) =>
      nodes.map((n) => n.textContent?.replace(/\u200b/g, '').trim()),
    );
    expect(paths).toEqual(expect.arrayContaining(['/v1/verifications', '/v1/verifications/{id}', '/v1/webhooks']));
    expect(foreign).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  });
});
