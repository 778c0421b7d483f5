import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * better-sqlite3's binding in node_modules is built for Node, which the tests and the CLI use.
 * Electron has its own ABI, so `npm run dev` loads a second build kept under build/native/, named by
 * the ABI it was checked against (scripts/native.mjs). Packaged apps carry an Electron build in
 * app.asar.unpacked and need no override.
 */
export function electronNativeBinding(
  projectRoot: string,
  modulesVersion: string = process.versions.modules,
): string | undefined {
  const candidate = join(projectRoot, 'build', 'native', `electron-abi${modulesVersion}`, 'better_sqlite3.node')
  return existsSync(candidate) ? candidate : undefined
}
