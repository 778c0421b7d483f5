import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

/**
 * Proves the layering rules in eslint.config.mjs are active by linting code at the paths they govern;
 * a rule that silently stopped matching would fail here.
 */
const eslint = new ESLint({ cwd: process.cwd() })

async function restrictedImportErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

const importsElectron = "import { app } from 'electron'\nexport const name = app.getName()\n"

describe('layering lint rules', () => {
  it('fails a core file outside src/main/shell that imports electron', async () => {
    expect(await restrictedImportErrors(importsElectron, 'src/main/core/uses-electron.ts')).toEqual([
      expect.stringContaining('Only src/main/shell'),
    ])
  })

  it('fails a shared file that imports electron', async () => {
    expect(await restrictedImportErrors(importsElectron, 'src/shared/uses-electron.ts')).toHaveLength(1)
  })

  it('fails a renderer file that imports electron or reaches into src/main', async () => {
    expect(await restrictedImportErrors(importsElectron, 'src/renderer/src/uses-electron.ts')).toHaveLength(1)
    const reachesIntoMain = "import { createCore } from '../../main/core/compose'\nexport const make = createCore\n"
    expect(await restrictedImportErrors(reachesIntoMain, 'src/renderer/src/stores/reach.ts')).toEqual([
      expect.stringContaining('only through src/renderer/src/api.ts'),
    ])
  })

  it('allows src/main/shell to import electron', async () => {
    expect(await restrictedImportErrors(importsElectron, 'src/main/shell/window.ts')).toEqual([])
  })
})

describe('dependency direction inside the core', () => {
  const importsCore = "import { ConnectionStore } from '../core/connection'\nexport const store = ConnectionStore\n"

  it('fails a file below core/ that imports core/', async () => {
    for (const path of ['src/main/sync/index.ts', 'src/main/orders/handlers.ts', 'src/main/ordering-client/client.ts', 'src/main/store/queries.ts', 'src/main/connectivity/monitor.ts']) {
      expect(await restrictedImportErrors(importsCore, path), path).toContainEqual(expect.stringContaining('Only src/main/core, cli and shell may import core/'))
    }
  })

  it('lets core/, cli/ and shell/ import core/', async () => {
    for (const path of ['src/main/core/compose.ts', 'src/main/cli/orders.ts', 'src/main/shell/index.ts']) {
      expect(await restrictedImportErrors(importsCore, path), path).toEqual([])
    }
  })

  it('keeps the ordering client at the bottom: errors, ports and shared only', async () => {
    const file = 'src/main/ordering-client/client.ts'
    const importsStore = "import { SyncStore } from '../store/sync-store'\nexport const store = SyncStore\n"
    expect(await restrictedImportErrors(importsStore, file)).toEqual([expect.stringContaining('ordering-client/ is the bottom layer')])
    const allowed = "import { CoreError } from '../errors'\nimport type { Clock } from '../ports'\nimport type { ErrorCode } from '../../shared/result'\nimport { backoffDelay } from './retry'\nexport const all = [CoreError, backoffDelay] as const\nexport type Both = [Clock, ErrorCode]\n"
    expect(await restrictedImportErrors(allowed, file)).toEqual([])
  })

  it('keeps the local copy free of sync and orders', async () => {
    const file = 'src/main/store/queries.ts'
    expect(await restrictedImportErrors("import { SyncEngine } from '../sync/engine'\nexport const e = SyncEngine\n", file)).toEqual([expect.stringContaining('store/ is the local copy')])
    expect(await restrictedImportErrors("import { OrderDesk } from '../orders/desk'\nexport const d = OrderDesk\n", file)).toEqual([expect.stringContaining('store/ is the local copy')])
    expect(await restrictedImportErrors("import type { OrderRecord } from '../ordering-client/schemas'\nexport type R = OrderRecord\n", file)).toEqual([])
  })

  it('still bans electron in every layered folder', async () => {
    for (const path of ['src/main/ordering-client/client.ts', 'src/main/store/queries.ts', 'src/main/cli/index.ts', 'src/main/core/compose.ts']) {
      expect(await restrictedImportErrors(importsElectron, path), path).toEqual([expect.stringContaining('Only src/main/shell')])
    }
  })
})

describe('SQLite transactions in the core', () => {
  async function ruleErrors(code: string, filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath })
    return (result?.messages ?? []).filter((m) => m.ruleId === 'sqlite/immediate-transactions').map((m) => m.message)
  }
  const declare = 'declare const db: { transaction(fn: () => void): { (): void; immediate(): void } }\n'

  it('fails a deferred transaction, called at once or kept for later', async () => {
    expect(await ruleErrors(`${declare}db.transaction(() => undefined)()\n`, 'src/main/store/deferred.ts')).toEqual([expect.stringContaining('.immediate()')])
    expect(await ruleErrors(`${declare}export const later = db.transaction(() => undefined)\n`, 'src/main/quotes/deferred.ts')).toHaveLength(1)
  })

  it('allows one that begins IMMEDIATE', async () => {
    expect(await ruleErrors(`${declare}db.transaction(() => undefined).immediate()\n`, 'src/main/store/immediate.ts')).toEqual([])
  })
})
