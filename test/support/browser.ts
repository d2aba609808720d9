import chromium from '@sparticuz/chromium';
import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * Headless Chromium from npm (@sparticuz/chromium ships the binary inside the package, so a
 * fresh `npm install` brings it; no download at run time). Its Lambda defaults turn web
 * security off; the hosted page's tests need CORS and CSP enforced as in a real browser, so
 * those switches are dropped, and so is --single-process (separate browser contexts crash in
it). A fake camera stands in for getUserMedia.
 */
const DROPPED = [
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
];

export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = await chromium.executablePath();
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: [
      ...chromium.args.filter((arg) => !DROPPED.includes(arg) && !arg.startsWith('--headless')),
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      '--lang=en-US',
      ...extraArgs,
    ],
    defaultViewport: { width: 1280, height: 900 },
  });
}
