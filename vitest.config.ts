import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/service/**/*.test.ts'],
    environment: 'node',
    // The CLI tests run the built CLI: built here when it is older than the source.
    globalSetup: ['test/support/cli-build.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
