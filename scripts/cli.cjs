// `npm run cli -- <command>`: the CLI as built with the app (out/main/cli.js) when it is current,
// which starts at once; else from source through tsx, which compiles what it loads on every start
// (1.2 to 3.5 s), saying how to make the build current. docs/cli.md.
const { spawnSync } = require('node:child_process')
const { join } = require('node:path')
const { builtCli, cliBuildIsCurrent, root } = require('./cli-build.cjs')

if (cliBuildIsCurrent()) {
  // In this process: the built entry reads process.argv from index 2 on, as it would run alone.
  require(builtCli)
} else {
  process.stderr.write(
    'satchel: the built CLI is older than the source; running from source (`npm run build` makes it current)\n',
  )
  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(root, 'src/main/cli/index.ts'), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
    },
  )
  process.exitCode = child.status ?? 1
}
