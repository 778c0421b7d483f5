#!/usr/bin/env node
/**
 * better-sqlite3 for Electron, beside the Node build in node_modules.
 *
 * node_modules/better-sqlite3 stays built for Node (vitest, the CLI, the bridge). For Electron we
 * build a second copy into build/native/electron-abi<N>/, which the app loads through
 * better-sqlite3's `nativeBinding` option (src/main/native.ts). One checkout, both runtimes, no
 * rebuild juggling.
 *
 * The trap this guards against: npm's `nodedir` (set on these machines) leaks into node-gyp through
 * npm_config_nodedir and makes an "Electron" rebuild quietly compile against Node's headers. So the
 * build runs with every npm_config_* variable removed, and the result is checked by loading it in
 * Electron (must work) and in Node (must fail with an ABI mismatch) before it is kept.
 *
 *   node scripts/native.mjs build-electron    build and verify
 *   node scripts/native.mjs ensure-electron   build only if no verified copy exists for this Electron
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve, sep } from 'node:path'

const require = createRequire(import.meta.url)
const root = resolve(dirname(new URL(import.meta.url).pathname), '..')

function fail(message) {
  process.stderr.write(`native: ${message}\n`)
  process.exit(1)
}

function electronBinary() {
  const path = require('./electron-binary.cjs').findElectronBinary()
  if (path) return path
  fail(
    'the Electron binary is not installed (was npm install run with ELECTRON_SKIP_BINARY_DOWNLOAD=1?). Run `node node_modules/electron/install.js` without that variable, with network access.',
  )
}

function cleanEnv(extra = {}) {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_config_/i.test(key)) env[key] = value
  }
  return { ...env, ...extra }
}

function electronModulesVersion(binary) {
  return execFileSync(binary, ['-p', 'process.versions.modules'], {
    env: cleanEnv({ ELECTRON_RUN_AS_NODE: '1' }),
    encoding: 'utf8',
  }).trim()
}

function targetPath(abi) {
  return join(root, 'build', 'native', `electron-abi${abi}`, 'better_sqlite3.node')
}

const probe = (binding) =>
  `const D=require(${JSON.stringify(require.resolve('better-sqlite3'))});` +
  `const db=new D(':memory:',{nativeBinding:${JSON.stringify(binding)}});` +
  `console.log(db.prepare('select sqlite_version() v').get().v)`

function loadsIn(binary, binding, env) {
  const result = spawnSync(binary, ['-e', probe(binding)], { env, encoding: 'utf8' })
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() }
}

function verify(binary, binding) {
  const inElectron = loadsIn(binary, binding, cleanEnv({ ELECTRON_RUN_AS_NODE: '1' }))
  if (!inElectron.ok) return `it does not load in Electron: ${inElectron.output}`
  const inNode = loadsIn(process.execPath, binding, cleanEnv())
  if (inNode.ok)
    return 'it loads in Node, so it was built for Node’s ABI, not Electron’s (npm_config_nodedir leaking into node-gyp?)'
  return undefined
}

function build(binary) {
  const electronVersion = require('electron/package.json').version
  const abi = electronModulesVersion(binary)
  const work = mkdtempSync(join(tmpdir(), 'satchel-native-'))
  const source = join(work, 'better-sqlite3')
  const installed = dirname(require.resolve('better-sqlite3/package.json'))
  // The Node build in node_modules must not be copied: node-gyp would happily reuse its objects.
  cpSync(installed, source, { recursive: true, filter: (path) => relative(installed, path).split(sep)[0] !== 'build' })
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js')
  process.stdout.write(`native: building better-sqlite3 for Electron ${electronVersion} (ABI ${abi})\n`)
  const result = spawnSync(
    process.execPath,
    [
      nodeGyp,
      'rebuild',
      '--release',
      `--target=${electronVersion}`,
      `--arch=${process.arch}`,
      '--dist-url=https://electronjs.org/headers',
      '--runtime=electron',
    ],
    { cwd: source, stdio: 'inherit', env: cleanEnv() },
  )
  if (result.status !== 0) fail('node-gyp failed (Electron headers need network access the first time)')
  const built = join(source, 'build', 'Release', 'better_sqlite3.node')
  const problem = verify(binary, built)
  if (problem) fail(`the build was discarded: ${problem}`)
  const target = targetPath(abi)
  mkdirSync(dirname(target), { recursive: true })
  renameSync(built, target)
  rmSync(work, { recursive: true, force: true })
  process.stdout.write(`native: ${target} verified in Electron (ABI ${abi})\n`)
}

const command = process.argv[2]
if (command === 'build-electron') {
  build(electronBinary())
} else if (command === 'ensure-electron') {
  const binary = electronBinary()
  const target = targetPath(electronModulesVersion(binary))
  if (existsSync(target) && !verify(binary, target)) process.stdout.write(`native: ${target} is current\n`)
  else build(binary)
} else {
  fail('usage: node scripts/native.mjs build-electron | ensure-electron')
}
