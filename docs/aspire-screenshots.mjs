// Screenshots of the Aspire dashboard for docs/: the resources page, a silo's details, and the trace of one web request
// that reads Cubby. Run by docs/aspire-screenshots.sh once the AppHost is up. Needs playwright-core and Debian's Chromium.
import { chromium } from 'playwright-core';

const dashboard = process.env.DASHBOARD ?? 'http://localhost:18888';
const out = process.env.OUT ?? 'docs';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });

await page.goto(`${dashboard}/`);
await page.getByText('cache-silo-3').first().waitFor({ timeout: 60000 });
await page.waitForTimeout(3000);
await page.screenshot({ path: `${out}/aspire-resources.png` });

await page.getByText('cache-silo-1', { exact: true }).first().click();
await page.waitForTimeout(3000);
await page.screenshot({ path: `${out}/aspire-silo-details.png` });

// The trace of GET /primes/{n}: the web app's request, its Orleans client call, and the shard grain's call on a silo.
await page.goto(`${dashboard}/traces`);
await page.getByText(/GET \/primes/).first().waitFor({ timeout: 60000 });
await page.getByText(/GET \/primes/).first().click();
await page.waitForTimeout(4000);
await page.screenshot({ path: `${out}/aspire-trace.png`, fullPage: true });

await browser.close();
