// Whether the CLI as built with the app (out/main/cli.js, src/main/cli/bin.ts) is current: newer
// than every file it is built from. Shared by `npm run cli` (scripts/cli.cjs) and the tests'
// globalSetup (test/support/cli-build.ts), which builds it when it is not.
const { readdirSync, statSync } = require('node:fs')
const { join } = require('node:path')

const root = join(__dirname, '..')
const builtCli = join(root, 'out', 'main', 'cli.js')

/** The newest modification time (ms) of the files below `dir`. */
function newest(dir) {
  let latest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

/** What the CLI's build is made of: the core and what it shares, the build's config, the dependencies. */
function sourcesChangedAt() {
  return Math.max(
    newest(join(root, 'src', 'main')),
    newest(join(root, 'src', 'shared')),
    ...['electron.vite.config.ts', 'package.json', 'package-lock.json'].map(
      (file) => statSync(join(root, file)).mtimeMs,
    ),
  )
}

function cliBuildIsCurrent() {
  let built
  try {
    built = statSync(builtCli).mtimeMs
  } catch {
    return false
  }
  return built >= sourcesChangedAt()
}

module.exports = { builtCli, cliBuildIsCurrent, root }
