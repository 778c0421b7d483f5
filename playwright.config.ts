import { availableParallelism } from 'node:os'
import { defineConfig } from '@playwright/test'

/**
 * The renderer runs in Debian's Chromium through the test bridge; Playwright's own browser download
 * cannot work on a closed network. The flags keep Chromium from reaching for Google's services.
 */
export const chromiumPath = process.env.SATCHEL_CHROMIUM ?? '/usr/bin/chromium'

/**
 * Two groups (docs/testing.md): `together` runs beside vitest on every core; `alone` is the
 * performance spec, whose frame and keystroke figures a busy core would spoil, run by itself after
 * everything else (scripts/test.mjs). `npx playwright test` alone runs both, `alone` last.
 */
const alone = ['performance.spec.ts']

export default defineConfig({
  testDir: 'test/e2e',
  // Not test-results/ itself: Playwright empties its outputDir, and vitest's report lives beside it.
  outputDir: 'test-results/playwright-artifacts',
  timeout: 60_000,
  // Each test has its own core, bridge and database folder, and resets the worker's double: a file's
  // tests may run on different workers.
  fullyParallel: true,
  workers: Number(process.env.SATCHEL_E2E_WORKERS) || Math.max(2, availableParallelism()),
  forbidOnly: !!process.env.CI,
  // No retries, ever: a test that fails only beside another is a defect to fix.
  retries: 0,
  reporter: [['list'], ['json', { outputFile: process.env.SATCHEL_E2E_REPORT ?? 'test-results/playwright.json' }]],
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
  projects: [
    { name: 'together', testIgnore: alone, outputDir: 'test-results/playwright-artifacts/together' },
    {
      name: 'alone',
      testMatch: alone,
      outputDir: 'test-results/playwright-artifacts/alone',
      // After the others when both run (`npx playwright test`); `--project=alone --no-deps` runs it by itself.
      dependencies: ['together'],
    },
  ],
})
