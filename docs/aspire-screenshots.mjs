// Screenshots of the Aspire dashboard for docs/: the resources page, a silo's details, the trace of one web request
// that reads Cubby, and a silo's metrics. Run by docs/aspire-screenshots.sh once the AppHost is up. Needs playwright-core and Debian's Chromium.
import { chromium } from 'playwright-core';

const dashboard = process.env.DASHBOARD ?? 'http://localhost:18888';
const out = process.env.OUT ?? 'docs';
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });

// The banners about the missing dev certificate and the unsecured endpoint are expected here (http on loopback).
async function dismissBanners() {
  for (const button of await page.locator('.dashboard-message-bar-dismiss').all()) {
    await button.click().catch(() => {});
  }
  await page.waitForTimeout(500);
}

await page.goto(`${dashboard}/`);
await page.getByText('cache-silo-3').first().waitFor({ timeout: 60000 });
await page.waitForTimeout(2000);
await dismissBanners();
await page.screenshot({ path: `${out}/aspire-resources.png` });

await page.getByText('cache-silo-1', { exact: true }).first().click();
await page.waitForTimeout(3000);
await page.screenshot({ path: `${out}/aspire-silo-details.png` });

// A request to the web app: ASP.NET Core's request, the Cubby client's grain calls, and the shard grains' on the silos.
// The newest request that read Cubby (IShardGrain/Get) is the /primes one the script sent; health checks only locate.
await page.goto(`${dashboard}/traces`);
const requests = page.getByText(/^web: Microsoft\.AspNetCore\.Hosting\.HttpRequestIn/);
await requests.first().waitFor({ timeout: 60000 });
await dismissBanners();
let found = false;
for (let i = (await requests.count()) - 1; i >= 0 && !found; i--) {
  await requests.nth(i).click();
  await page.waitForTimeout(2000);
  found = await page.getByText('IShardGrain/Get', { exact: true }).count() > 0;
  if (!found) {
    await page.goBack();
    await requests.first().waitFor({ timeout: 60000 });
  }
}
if (!found) throw new Error('No web request that read Cubby among the traces.');
await page.waitForTimeout(2000);
await page.screenshot({ path: `${out}/aspire-trace.png` });

// The silo's meters: Cubby's own beside Orleans', ASP.NET Core's and the runtime's.
await page.goto(`${dashboard}/metrics/resource/cache-silo-1`);
await page.locator('[title="cubby.entries"]').first().click({ timeout: 60000 });
await page.waitForTimeout(4000);
await page.screenshot({ path: `${out}/aspire-metrics.png` });

await browser.close();
