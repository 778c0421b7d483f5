import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import SlowFirst from './test/support/slow-first'

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/service/**/*.test.ts'],
    environment: 'node',
    // The CLI tests run the built CLI: built here when it is older than the source. The synced
    // databases tests copy instead of syncing again live in one folder for the run.
    globalSetup: ['test/support/cli-build.ts', 'test/support/templates.ts'],
    pool: 'forks',
    // One worker per core, never fewer than two (vitest's default leaves one core idle on two).
    maxWorkers: Math.max(2, availableParallelism()),
    sequence: { sequencer: SlowFirst },
    // Hang guards, not figures: `npm test` runs vitest beside the browser tests, so a test that takes
    // 5 s alone can take several times that when both cores are busy.
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
