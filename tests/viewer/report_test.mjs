// Browser check of `planetgen compare`'s report.html: opens it in Debian's chromium (through
// playwright-core, pinned in this folder's package-lock) from the file system, as a user would,
// and checks that there is no console error or failed request, that every picture loaded, and
// that the charts and the metrics table are there. Saves a full-page screenshot.
//
// usage: node report_test.mjs REPORT_HTML SCREENSHOT_PNG
// Exit code 0 when every check passes, 1 otherwise, 77 (skipped) when chromium is missing.

import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const [report, screenshot] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error('usage: node report_test.mjs REPORT_HTML SCREENSHOT_PNG');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(`skipped: ${chromiumPath} not found (apt-get install chromium)`);
  process.exit(77);
}

const problems = [];
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(pathToFileURL(path.resolve(report)).href, { waitUntil: 'load' });
  const images = await page.evaluate(() => [...document.images].map((i) => ({
    src: i.getAttribute('src'), ok: i.complete && i.naturalWidth > 0 })));
  if (images.length < 10) problems.push(`only ${images.length} images in the report`);
  for (const image of images) if (!image.ok) problems.push(`image did not load: ${image.src}`);
  const charts = await page.locator('svg.chart polyline').count();
  if (charts < 4) problems.push(`expected 4 chart lines, found ${charts}`);
  const rows = await page.locator('table tr').count();
  if (rows < 8) problems.push(`expected the metrics table, found ${rows} rows`);
  await page.screenshot({ path: screenshot, fullPage: true });
  if (!existsSync(screenshot) || statSync(screenshot).size < 10000)
    problems.push('the screenshot is missing or blank');
} finally {
  await browser.close();
}
for (const p of problems) console.log(`FAILED: ${p}`);
console.log(problems.length ? `${problems.length} problems` : 'ok: report.html renders cleanly');
process.exit(problems.length ? 1 : 0);
