import { defineConfig } from '@playwright/test'

/**
 * The renderer runs in Debian's Chromium through the test bridge; Playwright's own browser download
 * cannot work on a closed network. The flags keep Chromium from reaching for Google's services.
 */
export const chromiumPath = process.env.SATCHEL_CHROMIUM ?? '/usr/bin/chromium'

export default defineConfig({
  testDir: 'test/e2e',
  // Not test-results/ itself: Playwright empties its outputDir, and vitest's report lives beside it.
  outputDir: 'test-results/playwright-artifacts',
  timeout: 60_000,
  workers: 1,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: chromiumPath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
})
