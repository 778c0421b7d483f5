// electron-builder afterPack hook (electron-builder.yml). Runs once per platform and arch, after the
// app is laid out and before it is signed, which is the only moment both steps below can happen:
//
// 1. The better-sqlite3 binding. node_modules holds the Node build (vitest, the CLI and the bridge
//    need it), and npmRebuild is off so electron-builder does not recompile it in place. The package
//    needs the Electron-ABI build that scripts/native.mjs made and verified in build/native/; it is
//    copied over the Node one in app.asar.unpacked. A real release without it fails here: an app
//    that cannot open its database must not reach a rep.
// 2. Electron fuses, flipped with @electron/fuses (electron's own tool for its fuse wire) before
//    the signature seals the binary: no ELECTRON_RUN_AS_NODE, no NODE_OPTIONS or --inspect (either
//    would turn the signed app into a general-purpose Node runtime with the user's keychain access),
//    app code only from app.asar, and that archive's integrity checked (macOS, Windows).
//
// SATCHEL_PACKAGE_DRY_RUN=1 (the offline dry run) lets a missing binding pass with a warning, and
// SATCHEL_NATIVE_DIR points the hook at another folder than build/native (the tests' stand-in).
const { spawnSync } = require('node:child_process')
const {
  copyFileSync,
  existsSync,
  openSync,
  readSync,
  closeSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} = require('node:fs')
const path = require('node:path')

const projectRoot = path.resolve(__dirname, '..')
const archNames = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' }

class PackagingError extends Error {}

function isDryRun(env) {
  return env.SATCHEL_PACKAGE_DRY_RUN === '1'
}

/** Electron's module ABI (NODE_MODULE_VERSION) for the Electron being packaged. */
function electronAbi(electronVersion) {
  const electronDir = path.dirname(require.resolve('electron/package.json', { paths: [projectRoot] }))
  const installed = JSON.parse(readFileSync(path.join(electronDir, 'package.json'), 'utf8')).version
  if (electronVersion && installed !== electronVersion) {
    throw new PackagingError(
      `Packaging Electron ${electronVersion}, but node_modules holds Electron ${installed}; the native binding would not match.`,
    )
  }
  return readFileSync(path.join(electronDir, 'abi_version'), 'utf8').trim()
}

/** The unpacked binding inside the laid-out app. */
function packagedBindingPath(context) {
  const resources = context.packager.getResourcesDir(context.appOutDir)
  return path.join(
    resources,
    'app.asar.unpacked',
    'node_modules',
    'better-sqlite3',
    'build',
    'Release',
    'better_sqlite3.node',
  )
}

function nativeBuildPath(abi, env) {
  const dir = env.SATCHEL_NATIVE_DIR ? path.resolve(env.SATCHEL_NATIVE_DIR) : path.join(projectRoot, 'build', 'native')
  return path.join(dir, `electron-abi${abi}`, 'better_sqlite3.node')
}

/** First bytes of a shared library for each platform: ELF, Mach-O (thin or fat), PE. */
function looksLikeLibraryFor(file, platform) {
  const fd = openSync(file, 'r')
  const head = Buffer.alloc(4)
  try {
    readSync(fd, head, 0, 4, 0)
  } finally {
    closeSync(fd)
  }
  if (platform === 'linux') return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))
  if (platform === 'darwin' || platform === 'mas')
    return ['feedfacf', 'cffaedfe', 'cafebabe', 'bebafeca'].includes(head.toString('hex'))
  if (platform === 'win32') return head.subarray(0, 2).toString('latin1') === 'MZ'
  return false
}

/** A binding that loads in this Node was built for Node, which is exactly the mistake to catch. */
function loadsInNode(binding) {
  const betterSqlite = require.resolve('better-sqlite3', { paths: [projectRoot] })
  const probe = `const D=require(${JSON.stringify(betterSqlite)});new D(':memory:',{nativeBinding:${JSON.stringify(binding)}}).close()`
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  return spawnSync(process.execPath, ['-e', probe], { env, encoding: 'utf8' }).status === 0
}

function installElectronBinding(context, env = process.env, log = console) {
  const platform = context.electronPlatformName
  const arch = archNames[context.arch] ?? String(context.arch)
  const target = packagedBindingPath(context)
  if (!existsSync(target)) {
    throw new PackagingError(
      `better-sqlite3's binding is not unpacked at ${target}; check asarUnpack in electron-builder.yml.`,
    )
  }
  const hostPlatform = platform === 'mas' ? 'darwin' : platform
  if (hostPlatform !== process.platform || arch !== process.arch) {
    // build/native holds a binding for this machine only; another platform's package needs its own.
    const message = `Packaging ${platform}-${arch} on ${process.platform}-${process.arch}: better-sqlite3 must be built for Electron on a ${platform}-${arch} machine.`
    if (isDryRun(env)) return log.warn(`after-pack: ${message} (dry run: keeping the Node build)`)
    throw new PackagingError(message)
  }
  const abi = electronAbi(context.packager.config.electronVersion)
  const source = nativeBuildPath(abi, env)
  if (!existsSync(source)) {
    const message = `No Electron-ABI better-sqlite3 build at ${source}. Run \`npm run native:electron\` (needs the Electron binary and network access to Electron's headers) before packaging.`
    if (isDryRun(env))
      return log.warn(
        `after-pack: ${message} (dry run: the package keeps the Node build and would not open its database)`,
      )
    throw new PackagingError(message)
  }
  if (!looksLikeLibraryFor(source, platform)) throw new PackagingError(`${source} is not a ${platform} shared library.`)
  if (loadsInNode(source)) {
    throw new PackagingError(
      `${source} loads in Node ${process.version}, so it was built for Node, not Electron (ABI ${abi}). Rebuild it with \`npm run native:electron\`.`,
    )
  }
  // Replaced, not written into: the target may be a hard link to the project's Node build (ownCopy).
  rmSync(target, { force: true })
  copyFileSync(source, target)
  log.log(
    `after-pack: better-sqlite3 for Electron (ABI ${abi}) installed at ${path.relative(context.appOutDir, target)}`,
  )
  return target
}

/**
 * Makes `file` the package's own before it is changed in place. electron-builder may fill the app
 * folder with hard links to the project's files (25.x links node_modules, and may link Electron's
 * dist): writing through one would put the Electron binding into the project's own better-sqlite3,
 * which Node then cannot load, or flip the fuses of the Electron that `npm run dev` runs.
 */
function ownCopy(file) {
  if (!existsSync(file) || statSync(file).nlink < 2) return
  const copy = `${file}.own`
  copyFileSync(file, copy)
  renameSync(copy, file)
}

/** The file whose fuse wire is flipped, as electron-builder itself locates it. */
function executablePath(context) {
  const { appOutDir, electronPlatformName, packager } = context
  if (electronPlatformName === 'darwin' || electronPlatformName === 'mas')
    return path.join(appOutDir, `${packager.appInfo.productFilename}.app`)
  if (electronPlatformName === 'win32') return path.join(appOutDir, `${packager.appInfo.productFilename}.exe`)
  return path.join(appOutDir, packager.executableName)
}

async function satchelFuses(context) {
  const { FuseV1Options, FuseVersion } = await import('@electron/fuses')
  return {
    version: FuseVersion.V1,
    // Flipping fuses breaks the ad-hoc signature an arm64 macOS binary must carry to launch at all.
    resetAdHocDarwinSignature: context.electronPlatformName === 'darwin' && archNames[context.arch] === 'arm64',
    [FuseV1Options.RunAsNode]: false,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: true,
    [FuseV1Options.OnlyLoadAppFromAsar]: true,
    [FuseV1Options.EnableCookieEncryption]: true,
    // GrantFileProtocolExtraPrivileges stays as Electron ships it: the renderer is loaded from
    // file:// and its bundled ES modules need those privileges to load.
  }
}

async function flipSatchelFuses(context, log = console) {
  const { flipFuses } = await import('@electron/fuses')
  const executable = executablePath(context)
  ownCopy(executable)
  await flipFuses(executable, await satchelFuses(context))
  log.log(`after-pack: fuses set on ${path.relative(context.appOutDir, executable)}`)
  return executable
}

async function afterPack(context) {
  installElectronBinding(context)
  await flipSatchelFuses(context)
}

module.exports = afterPack
module.exports.default = afterPack
module.exports.installElectronBinding = installElectronBinding
module.exports.flipSatchelFuses = flipSatchelFuses
module.exports.satchelFuses = satchelFuses
module.exports.executablePath = executablePath
module.exports.PackagingError = PackagingError
