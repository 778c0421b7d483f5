/**
 * vitest's globalSetup: the CLI tests run the CLI as built with the app (out/main/cli.js), so it is
 * built first when it is older than the source. `npm test` builds before vitest (scripts/test.mjs)
 * and finds it current; a plain `npx vitest run` of one CLI test builds it here, once.
 */
import { execFileSync } from 'node:child_process'
import { cliBuildIsCurrent, root } from '../../scripts/cli-build.cjs'

export default function setup(): void {
  if (cliBuildIsCurrent()) return
  process.stdout.write('Building the app (the CLI in it is older than the source): electron-vite build\n')
  execFileSync('npx', ['electron-vite', 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' },
  })
  if (!cliBuildIsCurrent())
    throw new Error('electron-vite build ran, and out/main/cli.js is still older than the source')
}
