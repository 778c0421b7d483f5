import type { IConfiguration, ICruiseResult, IViolation } from 'dependency-cruiser'
import { ESLint, type Linter } from 'eslint'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import tseslint from 'typescript-eslint'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * Proves the rails are active: the layering allow-list in .dependency-cruiser.cjs refuses every way of
 * importing around it (re-exports across layers, src/ reaching test/ or scripts/, scripts/ reaching a
 * part's insides included), lets the tree through, and matches docs/architecture.md's table; eslint
 * keeps electron out of the core, deferred transactions out of src/main, every import of src/ where
 * dependency-cruiser sees it, and each file of src/ to a readable size (scripts/eslint/rails.mjs). A
 * rule that silently stopped matching would fail here.
 */
const root = process.cwd()
type Layers = Record<string, { may: string[]; why: string }>
const config = createRequire(join(root, 'package.json'))('./.dependency-cruiser.cjs') as IConfiguration & {
  layers: Layers
  roots: string[]
}

async function violations(baseDir: string): Promise<IViolation[]> {
  const { cruise } = await import('dependency-cruiser')
  const result = await cruise(config.roots, {
    ...config.options,
    baseDir,
    ruleSet: { forbidden: config.forbidden ?? [] },
    validate: true,
  })
  return (result.output as ICruiseResult).summary.violations
}

interface Probe {
  /** Where the import is written; a file that exists gets the line appended. */
  file: string
  /** The import, given the folder the probe tree lives in (for absolute paths). */
  code: (base: string) => string
  /** The rule that must refuse it, and the file it reaches. */
  rule: string
  to: string
}

/** A package resolves into node_modules, wherever that folder really is. */
const reaches = (violation: IViolation, probe: Probe) =>
  violation.from === probe.file &&
  violation.rule.name === probe.rule &&
  (violation.to === probe.to || violation.to.includes(`node_modules/${probe.to}/`))

const refuse = (file: string, code: string | ((base: string) => string), rule: string, to: string): Probe => ({
  file,
  code: typeof code === 'string' ? () => code : code,
  rule,
  to,
})

const probes: Probe[] = [
  // db/ sits below everything that keeps data in it.
  refuse(
    'src/main/db/__probe_orders.ts',
    "import { OrderDesk } from '../orders/desk'\nexport const d = OrderDesk\n",
    'layer main/db/',
    'src/main/orders/desk.ts',
  ),
  refuse(
    'src/main/db/__probe_sync.ts',
    "const engine = require('../sync/engine')\nexport default engine\n",
    'layer main/db/',
    'src/main/sync/engine.ts',
  ),
  refuse(
    'src/main/db/__probe_store.ts',
    "export { CatalogBrowse } from '../browse/catalogs'\n",
    'layer main/db/',
    'src/main/browse/catalogs.ts',
  ),
  // sync/ and orders/ know nothing of each other.
  refuse(
    'src/main/sync/__probe_orders.ts',
    "import type { Orders } from '../orders'\nexport type O = Orders\n",
    'layer main/sync/',
    'src/main/orders/index.ts',
  ),
  refuse(
    'src/main/orders/__probe_sync.ts',
    "export const load = () => import('../sync/scheduler')\n",
    'layer main/orders/',
    'src/main/sync/scheduler.ts',
  ),
  refuse(
    'src/main/orders/__probe_sync_equals.ts',
    "import engine = require('../sync/engine')\nexport const e = engine\n",
    'layer main/orders/',
    'src/main/sync/engine.ts',
  ),
  refuse(
    'src/main/orders/__probe_sync_type_export.ts',
    "export type { SyncEngine } from '../sync/engine'\n",
    'layer main/orders/',
    'src/main/sync/engine.ts',
  ),
  // connectivity/ is told; it never calls sync or orders.
  refuse(
    'src/main/connectivity/__probe_sync.ts',
    "import { createSync } from '../sync/index'\nexport const c = createSync\n",
    'layer main/connectivity/',
    'src/main/sync/index.ts',
  ),
  refuse(
    'src/main/connectivity/__probe_orders.ts',
    "export const load = () => import('../../main/orders/outbox/driver')\n",
    'layer main/connectivity/',
    'src/main/orders/outbox/driver.ts',
  ),
  refuse(
    'src/main/connectivity/__probe_template.ts',
    'export const load = () => import(`../sync/engine`)\n',
    'layer main/connectivity/',
    'src/main/sync/engine.ts',
  ),
  // orders/ does not reach up into what builds on it.
  refuse(
    'src/main/orders/__probe_quotes.ts',
    "import { QuoteDesk } from './../quotes/desk'\nexport const q = QuoteDesk\n",
    'layer main/orders/',
    'src/main/quotes/desk.ts',
  ),
  refuse(
    'src/main/orders/__probe_documents.ts',
    "export * from '../documents'\n",
    'layer main/orders/',
    'src/main/documents/index.ts',
  ),
  // No feature folder reaches the shell (electron by a side door) or the CLI.
  refuse(
    'src/main/quotes/__probe_shell.ts',
    "import '../shell/window'\n",
    'layer main/quotes/',
    'src/main/shell/window.ts',
  ),
  refuse(
    'src/main/usual-items/__probe_cli.ts',
    "import { runQuotes } from '../cli/quotes'\nexport const r = runQuotes\n",
    'layer main/usual-items/',
    'src/main/cli/quotes.ts',
  ),
  refuse(
    'src/main/documents/__probe_shell.ts',
    (base) => `import { printing } from '${base}/src/main/shell/printing'\nexport const p = printing\n`,
    'layer main/documents/',
    'src/main/shell/printing.ts',
  ),
  refuse(
    'src/main/local/__probe_cli.ts',
    "const format = require('../cli/format')\nexport default format\n",
    'layer main/local/',
    'src/main/cli/format.ts',
  ),
  refuse(
    'src/main/connectivity/__probe_shell.ts',
    "export const load = () => import('../shell/network')\n",
    'layer main/connectivity/',
    'src/main/shell/network.ts',
  ),
  refuse(
    'src/main/sync/__probe_cli.ts',
    "export { runSync } from '../cli/sync'\n",
    'layer main/sync/',
    'src/main/cli/sync.ts',
  ),
  // The top-level files lean on nothing above them.
  refuse(
    'src/main/pricing.ts',
    "export type { Orders as ProbeOrders } from './orders'\n",
    'layer main/pricing.ts',
    'src/main/orders/index.ts',
  ),
  refuse(
    'src/main/pricing.ts',
    "export type { CatalogBrowse as ProbeQueries } from './browse/catalogs'\n",
    'layer main/pricing.ts',
    'src/main/browse/catalogs.ts',
  ),
  refuse(
    'src/main/errors.ts',
    "export type { Core as ProbeCore } from './core/compose'\n",
    'layer main/errors.ts',
    'src/main/core/compose.ts',
  ),
  refuse(
    'src/main/errors.ts',
    "export type { Database as ProbeDatabase } from './db/database'\n",
    'layer main/errors.ts',
    'src/main/db/database.ts',
  ),
  refuse(
    'src/main/turns.ts',
    "export type { ServiceClient as ProbeClient } from './ordering-client/client'\n",
    'layer main/turns.ts',
    'src/main/ordering-client/client.ts',
  ),
  // src/shared is the contract of both processes: nothing runtime-specific.
  refuse(
    'src/shared/__probe_orders.ts',
    "import type { Orders } from '../main/orders'\nexport type O = Orders\n",
    'layer shared/',
    'src/main/orders/index.ts',
  ),
  refuse(
    'src/shared/__probe_node.ts',
    "import { join } from 'node:path'\nexport const j = join\n",
    'layer shared/',
    'path',
  ),
  refuse(
    'src/shared/__probe_electron.ts',
    "import { ipcRenderer } from 'electron'\nexport const i = ipcRenderer\n",
    'layer shared/',
    'electron',
  ),
  // The preload and the renderer never reach the main process's code.
  refuse(
    'src/preload/__probe_main.ts',
    "import { createCore } from '../main/core/compose'\nexport const c = createCore\n",
    'layer preload/',
    'src/main/core/compose.ts',
  ),
  refuse(
    'src/preload/__probe_require.ts',
    "const errors = require('../main/errors')\nexport default errors\n",
    'layer preload/',
    'src/main/errors.ts',
  ),
  refuse(
    'src/renderer/src/stores/__probe_main.ts',
    "import { roundMoney } from '../../../main/pricing'\nexport const r = roundMoney\n",
    'layer renderer/',
    'src/main/pricing.ts',
  ),
  refuse(
    'src/renderer/src/components/__probe_main.vue',
    '<script setup lang="ts">\nimport { listPrice } from \'../../../main/pricing\'\nconst price = listPrice\n</script>\n<template><p>{{ price }}</p></template>\n',
    'layer renderer/',
    'src/main/pricing.ts',
  ),
  refuse(
    'src/renderer/src/__probe_electron.ts',
    "import { ipcRenderer } from 'electron'\nexport const i = ipcRenderer\n",
    'layer renderer/',
    'electron',
  ),
  refuse(
    'src/renderer/src/__probe_node.ts',
    "import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n",
    'layer renderer/',
    'fs',
  ),
  // Detours: however the path is spelled, it resolves to the same file.
  refuse(
    'src/main/ordering-client/__probe_detour.ts',
    "import { SyncEngine } from '../../main/sync/engine'\nexport const e = SyncEngine\n",
    'layer main/ordering-client/',
    'src/main/sync/engine.ts',
  ),
  refuse(
    'src/main/local/__probe_detour.ts',
    "import { SyncEngine } from './../sync/engine'\nexport const e = SyncEngine\n",
    'layer main/local/',
    'src/main/sync/engine.ts',
  ),
  refuse(
    'src/main/ordering-client/__probe_loop.ts',
    "import { CatalogBrowse } from '../ordering-client/../browse/catalogs'\nexport const q = CatalogBrowse\n",
    'layer main/ordering-client/',
    'src/main/browse/catalogs.ts',
  ),
  refuse(
    'src/main/local/__probe_root.ts',
    "import { Outbox } from '../../../src/main/orders/outbox/outbox'\nexport const o = Outbox\n",
    'layer main/local/',
    'src/main/orders/outbox/outbox.ts',
  ),
  refuse(
    'src/main/local/__probe_js.ts',
    "import { SyncEngine } from '../sync/engine.js'\nexport const e = SyncEngine\n",
    'layer main/local/',
    'src/main/sync/engine.ts',
  ),
  refuse(
    'src/main/sync/__probe_absolute.ts',
    (base) => `export * from '${base}/src/main/orders/outbox/flusher'\n`,
    'layer main/sync/',
    'src/main/orders/outbox/flusher.ts',
  ),
  // Only the shell imports electron, and nothing below the composers imports them.
  refuse(
    'src/main/core/__probe_electron.ts',
    "import { app } from 'electron'\nexport const a = app\n",
    'layer main/core/',
    'electron',
  ),
  refuse(
    'src/main/cli/__probe_electron.ts',
    "export const load = () => import('electron')\n",
    'layer main/cli/',
    'electron',
  ),
  refuse(
    'src/main/orders/__probe_electron.ts',
    "const { net } = require('electron')\nexport const n = net\n",
    'layer main/orders/',
    'electron',
  ),
  refuse('src/main/core/__probe_cli.ts', "import '../cli/index'\n", 'layer main/core/', 'src/main/cli/index.ts'),
  refuse(
    'src/main/ordering-client/__probe_core.ts',
    "import type { Core } from '../core/compose'\nexport type C = Core\n",
    'layer main/ordering-client/',
    'src/main/core/compose.ts',
  ),
  // A folder the map does not know imports nothing; a circle and an unresolvable import are refused too.
  // sync/ only syncs: browsing is browse/'s, and browse/ only reads what sync filled.
  refuse(
    'src/main/sync/__probe_browse.ts',
    "import { CatalogBrowse } from '../browse/catalogs'\nexport const q = CatalogBrowse\n",
    'layer main/sync/',
    'src/main/browse/catalogs.ts',
  ),
  refuse(
    'src/main/browse/__probe_sync.ts',
    "import { createSyncRun } from '../sync/run'\nexport const r = createSyncRun\n",
    'layer main/browse/',
    'src/main/sync/run.ts',
  ),
  refuse(
    'src/main/orders/__probe_browse.ts',
    "export { createBrowsing } from '../browse'\n",
    'layer main/orders/',
    'src/main/browse/index.ts',
  ),
  refuse(
    'src/main/settings/__probe_orders.ts',
    "import { Outbox } from '../orders/outbox/outbox'\nexport const o = Outbox\n",
    'layer main/settings/',
    'src/main/orders/outbox/outbox.ts',
  ),
  refuse(
    'src/main/reports/__probe_unmapped.ts',
    "import { CoreError } from '../errors'\nexport const e = CoreError\n",
    'unmapped',
    'src/main/errors.ts',
  ),
  refuse(
    'src/main/orders/__probe_ring_a.ts',
    "import { b } from './__probe_ring_b'\nexport const a = () => b\n",
    'no-circular',
    'src/main/orders/__probe_ring_b.ts',
  ),
  refuse(
    'src/main/local/__probe_missing.ts',
    "import { nothing } from '../sync/no-such-module'\nexport const n = nothing\n",
    'unresolvable',
    '../sync/no-such-module',
  ),
  // A layer re-exports only its own modules, even what it may import: usual-items/ may import orders/
  // but not ordering-client/.
  refuse(
    'src/main/orders/__probe_reexport.ts',
    "export { ServiceClient } from '../ordering-client/client'\n",
    're-export main/orders/',
    'src/main/ordering-client/client.ts',
  ),
  refuse(
    'src/main/orders/__probe_reexport_all.ts',
    "export * from '../local/price-groups'\n",
    're-export main/orders/',
    'src/main/local/price-groups.ts',
  ),
  refuse(
    'src/main/orders/__probe_reexport_types.ts',
    "export type * from '../local/stock'\n",
    're-export main/orders/',
    'src/main/local/stock.ts',
  ),
  refuse(
    'src/main/local/__probe_reexport_type.ts',
    "export type { Database } from '../db/database'\n",
    're-export main/local/',
    'src/main/db/database.ts',
  ),
  refuse(
    'src/main/quotes/__probe_reexport_ns.ts',
    "export * as desk from '../orders/desk'\n",
    're-export main/quotes/',
    'src/main/orders/desk.ts',
  ),
  refuse(
    'src/main/sync/__probe_reexport_shared.ts',
    "export { resourceNames } from '../../shared/synced'\n",
    're-export main/sync/',
    'src/shared/synced.ts',
  ),
  // src/ is the app: it never imports the tests or the scripts around it.
  refuse(
    'src/main/orders/__probe_test.ts',
    "import { helper } from '../../../test/support/__fixture_helper'\nexport const h = helper\n",
    'src-alone',
    'test/support/__fixture_helper.ts',
  ),
  refuse(
    'src/main/core/__probe_scripts.ts',
    "export const load = () => import('../../../scripts/__fixture_script')\n",
    'src-alone',
    'scripts/__fixture_script.ts',
  ),
  refuse(
    'src/renderer/src/__probe_test.ts',
    "import '../../../test/support/__fixture_helper'\n",
    'src-alone',
    'test/support/__fixture_helper.ts',
  ),
  // scripts/ go through a part's public entry, never its insides.
  refuse(
    'scripts/__probe_insides.ts',
    "import { createProfileManager } from '../src/main/profiles/manager'\nexport const m = createProfileManager\n",
    'scripts-through-entries',
    'src/main/profiles/manager.ts',
  ),
  refuse(
    'scripts/__probe_insides_sync.ts',
    "export const load = () => import('../src/main/sync/engine')\n",
    'scripts-through-entries',
    'src/main/sync/engine.ts',
  ),
]

/** The other half of the circle. */
const ringHalf = {
  file: 'src/main/orders/__probe_ring_b.ts',
  code: "import { a } from './__probe_ring_a'\nexport const b = () => a\n",
}

/** What the probes into test/ and scripts/ reach (the copy holds src/ alone). */
const fixtures = [
  { file: 'test/support/__fixture_helper.ts', code: 'export const helper = 1\n' },
  { file: 'scripts/__fixture_script.ts', code: 'export const script = 1\n' },
]

/** Imports the map allows, so the rules are known not to refuse everything. */
const allowed: { file: string; code: string }[] = [
  {
    file: 'src/main/local/__allowed_db.ts',
    code: "import type { Database } from '../db/database'\nexport type D = Database\n",
  },
  {
    file: 'src/main/orders/__allowed_local.ts',
    code: "import { PriceGroups } from '../local/price-groups'\nexport const p = PriceGroups\n",
  },
  {
    file: 'src/main/core/__allowed_browse.ts',
    code: "import { browseQueries } from '../browse'\nexport const q = browseQueries\n",
  },
  {
    file: 'src/main/orders/__allowed_own.ts',
    code: "export { OrderDesk } from './desk'\nexport type * from './request'\n",
  },
  { file: 'src/renderer/src/__allowed_own.ts', code: "export * from './format'\n" },
  // A package is no layer: the layer that owns it may hand on its types.
  { file: 'src/main/db/__allowed_package.ts', code: "export type { Database } from 'better-sqlite3'\n" },
  {
    file: 'scripts/__allowed_entries.ts',
    code: "export { createProfileManager } from '../src/main/profiles'\nexport { listPrice } from '../src/main/pricing'\nexport type { Result } from '../src/shared/result'\nexport { helper } from '../test/support/__fixture_helper'\n",
  },
  {
    file: 'test/unit/__allowed_insides.ts',
    code: "import { SyncEngine } from '../../src/main/sync/engine'\nexport const e = SyncEngine\n",
  },
  { file: 'src/main/documents/__allowed_quotes.ts', code: "export const load = () => import('../quotes/desk')\n" },
  { file: 'src/main/shell/__allowed_electron.ts', code: "import { app } from 'electron'\nexport const a = app\n" },
  {
    file: 'src/preload/__allowed_electron.ts',
    code: "const { contextBridge } = require('electron')\nexport default contextBridge\n",
  },
  {
    file: 'src/renderer/src/__allowed_shared.ts',
    code: "import { methodNames } from '../../shared/channels'\nexport const m = methodNames\n",
  },
]

describe('layering allow-list (.dependency-cruiser.cjs)', () => {
  let base = ''
  let found: IViolation[] = []

  beforeAll(async () => {
    // The probes go into a copy of src/, so the tree itself is never written to.
    base = mkdtempSync(join(tmpdir(), 'satchel-layers-'))
    cpSync(join(root, 'src'), join(base, 'src'), { recursive: true })
    symlinkSync(realpathSync(join(root, 'node_modules')), join(base, 'node_modules'), 'dir')
    for (const { file, code } of [
      ...probes.map((probe) => ({ file: probe.file, code: probe.code(base) })),
      ringHalf,
      ...fixtures,
      ...allowed,
    ]) {
      const path = join(base, file)
      mkdirSync(dirname(path), { recursive: true })
      writeFileSync(path, `${existsSync(path) ? readFileSync(path, 'utf8') : ''}${code}`)
    }
    found = await violations(base)
  })

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true })
  })

  it(`refuses each of the ${probes.length} bypasses, by the rule of the folder it is written in`, () => {
    expect(probes.length).toBeGreaterThanOrEqual(30)
    const missed = probes.filter((probe) => !found.some((v) => reaches(v, probe)))
    expect(missed.map((probe) => `${probe.file}: ${probe.code(base).trim()}`)).toEqual([])
  })

  it('refuses nothing but the probes (and the circles an upward probe closes), and lets the allowed imports through', () => {
    const probed = new Set([...probes.map((probe) => probe.file), ringHalf.file])
    const unexpected = found.filter(
      (v) => !probed.has(v.from) && !(v.rule.name === 'no-circular' && v.cycle?.some((step) => probed.has(step.name))),
    )
    expect(unexpected.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([])
    expect(
      found.filter((v) => allowed.some((a) => a.file === v.from)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`),
    ).toEqual([])
  })

  it('finds no violation and no circle in the tree as it is', async () => {
    expect((await violations(root)).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([])
  })
})

describe("docs/architecture.md's layering table", () => {
  const cell = (names: string[]) => (names.length ? names.join(', ') : '—')

  it('is the allow-map of .dependency-cruiser.cjs, row for row', () => {
    const expected = [
      '| under `src/` | may import (besides itself) | packages | because |',
      '|---|---|---|---|',
      ...Object.entries(config.layers).map(([key, { may, why }]) => {
        const folders = may.filter((target) => target in config.layers).map((target) => `\`${target}\``)
        const packages = may.filter((target) => target.startsWith('npm:')).map((target) => `\`${target.slice(4)}\``)
        if (may.includes('node:*')) packages.push('Node built-ins')
        return `| \`${key}\` | ${cell(folders)} | ${cell(packages)} | ${why} |`
      }),
    ]
    const lines = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8').split('\n')
    const start = lines.indexOf(expected[0] as string)
    const table =
      start < 0
        ? []
        : lines.slice(
            start,
            lines.findIndex((line, index) => index > start && !line.startsWith('|')),
          )
    expect(table.join('\n')).toBe(expected.join('\n'))
  })
})

describe('electron ban (eslint, beside the allow-list)', () => {
  const eslint = new ESLint({ cwd: root })
  async function restrictedImportErrors(code: string, filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath })
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
  }
  const importsElectron = "import { app } from 'electron'\nexport const name = app.getName()\n"

  it('fails a file outside src/main/shell that imports electron', async () => {
    for (const path of [
      'src/main/core/uses-electron.ts',
      'src/main/ordering-client/client.ts',
      'src/main/browse/catalogs.ts',
      'src/main/cli/index.ts',
      'src/shared/uses-electron.ts',
      'src/renderer/src/uses-electron.ts',
    ]) {
      expect(await restrictedImportErrors(importsElectron, path), path).toEqual([
        expect.stringContaining('Only src/main/shell'),
      ])
    }
  })

  it('allows src/main/shell to import electron', async () => {
    expect(await restrictedImportErrors(importsElectron, 'src/main/shell/window.ts')).toEqual([])
  })
})

describe('SQLite transactions in the core', () => {
  const eslint = new ESLint({ cwd: root })
  async function ruleErrors(code: string, filePath: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath })
    return (result?.messages ?? []).filter((m) => m.ruleId === 'sqlite/immediate-transactions').map((m) => m.message)
  }
  const declare = 'declare const db: { transaction(fn: () => void): { (): void; immediate(): void } }\n'

  it('fails a deferred transaction, called at once or kept for later', async () => {
    expect(await ruleErrors(`${declare}db.transaction(() => undefined)()\n`, 'src/main/local/deferred.ts')).toEqual([
      expect.stringContaining('.immediate()'),
    ])
    expect(
      await ruleErrors(
        `${declare}export const later = db.transaction(() => undefined)\n`,
        'src/main/quotes/deferred.ts',
      ),
    ).toHaveLength(1)
  })

  it('allows one that begins IMMEDIATE', async () => {
    expect(
      await ruleErrors(`${declare}db.transaction(() => undefined).immediate()\n`, 'src/main/local/immediate.ts'),
    ).toEqual([])
  })
})

describe('every import of src/ where dependency-cruiser sees it (scripts/eslint/rails.mjs)', () => {
  const eslint = new ESLint({ cwd: root })
  const hiding = [
    'rails/no-create-require',
    'rails/literal-imports',
    'rails/no-passing-on',
    'rails/no-hidden-globals',
    'rails/worker-entries',
    'rails/local-data',
    'no-eval',
    'no-new-func',
  ]
  async function refusals(code: string, filePath = 'src/main/orders/probe.ts'): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath })
    return (result?.messages ?? [])
      .filter((m) => m.ruleId !== null && hiding.includes(m.ruleId))
      .map((m) => `${m.ruleId}: ${m.message}`)
  }
  const createRequire = "import { createRequire } from 'node:module'\n"

  it.each([
    [
      'a require made by createRequire',
      `${createRequire}export const engine = createRequire(__filename)('../sync/engine')\n`,
      'rails/no-create-require',
    ],
    [
      'createRequire kept for later',
      `${createRequire}const load = createRequire(__filename)\nexport const engine = load('../sync/engine')\n`,
      'rails/no-create-require',
    ],
    [
      'createRequire renamed',
      "import { createRequire as make } from 'node:module'\nexport const engine = make(__filename).resolve('x')\n",
      'rails/no-create-require',
    ],
    [
      'createRequire of a namespace',
      "import * as mod from 'node:module'\nexport const engine = mod.createRequire(__filename)('../sync/engine')\n",
      'rails/no-create-require',
    ],
    [
      'import() of a template with a name in it',
      'export const load = (name: string) => import(`../sync/${name}`)\n',
      'rails/literal-imports',
    ],
    [
      'import() of a variable',
      "const path = '../sync/engine'\nexport const load = () => import(path)\n",
      'rails/literal-imports',
    ],
    ['require() of a variable', 'export const load = (name: string) => require(name)\n', 'rails/literal-imports'],
    ['require handed on as a value', 'export const load = require\n', 'rails/literal-imports'],
    ['module.require', "export const engine = module.require('../sync/engine')\n", 'rails/literal-imports'],
    ['eval', 'export const engine = eval("require(\'../sync/engine\')")\n', 'no-eval'],
    ['new Function', "export const load = new Function('name', 'return require(name)')\n", 'no-new-func'],
    // The re-export dependency-cruiser's `re-export <layer>` refuses, written in two statements.
    [
      'another layer handed on by import, then export',
      "import { ServiceClient } from '../ordering-client/client'\nexport { ServiceClient }\n",
      'rails/no-passing-on',
    ],
    [
      'another layer handed on renamed',
      "import { roundMoney as round } from '../pricing'\nexport { round as roundMoney }\n",
      'rails/no-passing-on',
    ],
    [
      'another layer handed on as the default',
      "import * as local from '../local/stock'\nexport default local\n",
      'rails/no-passing-on',
    ],
    [
      'require reached through globalThis by a computed name',
      "export const r = globalThis['req' + 'uire']\n",
      'rails/no-hidden-globals',
    ],
    ['require taken off globalThis', 'export const load = globalThis.require\n', 'rails/no-hidden-globals'],
  ])('refuses %s', async (_name, code, rule) => {
    expect(await refusals(code)).toEqual([expect.stringMatching(new RegExp(`^${rule}: `))])
  })

  it('refuses a worker started from sync/ on the shell’s module, and one started from code outside the two bootstraps', async () => {
    const worker = "import { Worker } from 'node:worker_threads'\n"
    expect(
      await refusals(
        `${worker}export const start = () => new Worker(new URL('../shell/ipc.js', import.meta.url))\n`,
        'src/main/sync/probe.ts',
      ),
    ).toEqual([expect.stringMatching(/^rails\/worker-entries: a worker entry in main\/shell\//)])
    expect(
      await refusals(`${worker}export const start = (path: string) => new Worker(path)\n`, 'src/main/sync/probe.ts'),
    ).toEqual([expect.stringMatching(/^rails\/worker-entries: a worker entry that is not a literal path/)])
    expect(
      await refusals(
        `${worker}export const start = () => new Worker("require('../shell/ipc.js')", { eval: true })\n`,
        'src/main/sync/probe.ts',
      ),
    ).toEqual([expect.stringMatching(/^rails\/worker-entries: a worker started from code/)])
    // Its own layer's entry, and the bootstraps as they are.
    expect(
      await refusals(
        `${worker}export const start = () => new Worker(new URL('./writer-thread.js', import.meta.url))\n`,
        'src/main/sync/probe.ts',
      ),
    ).toEqual([])
    expect(
      await refusals(readFileSync(join(root, 'src/main/sync/page-writer.ts'), 'utf8'), 'src/main/sync/page-writer.ts'),
    ).toEqual([])
    expect(await refusals("export const name = globalThis['structuredClone']\n")).toEqual([])
  })

  it('refuses the local copy built outside local/: a table reader, LocalCopy, the order lookup, openLocalData in a part', async () => {
    const reader =
      "import { Customers } from '../local/customers'\nexport const make = (db: never) => new Customers(db)\n"
    expect(await refusals(reader, 'src/main/browse/probe.ts')).toEqual([
      expect.stringMatching(/^rails\/local-data: Customers is the local copy’s own/),
    ])
    const copy =
      "import { LocalCopy } from '../local/copy'\nexport const make = (db: never, r: never) => new LocalCopy(db, r)\n"
    expect(await refusals(copy, 'src/main/tracking/probe.ts')).toEqual([
      expect.stringMatching(/^rails\/local-data: LocalCopy is the local copy’s own/),
    ])
    const lookup =
      "import { LocalOrderLookup } from '../orders/local-lookup'\nexport const make = (local: never) => new LocalOrderLookup(local)\n"
    expect(await refusals(lookup, 'src/main/documents/probe.ts')).toEqual([
      expect.stringMatching(/^rails\/local-data: The order rules’ view of the local copy is one per core/),
    ])
    const open = "import { openLocalData } from '../local/data'\nexport const make = (db: never) => openLocalData(db)\n"
    expect(await refusals(open, 'src/main/orders/probe.ts')).toEqual([
      expect.stringMatching(/^rails\/local-data: openLocalData opens the local copy’s surface once per connection/),
    ])
    // Where it belongs: inside local/, and where the parts are composed.
    expect(await refusals(reader.replace('../local/customers', './customers'), 'src/main/local/probe.ts')).toEqual([])
    expect(await refusals(open, 'src/main/cli/probe.ts')).toEqual([])
    expect(await refusals(open, 'src/main/core/compose.ts')).toEqual([])
  })

  it('refuses a computed import() in a Vue file too', async () => {
    const vue =
      '<script setup lang="ts">\nconst load = (name: string) => import(`./views/${name}.vue`)\n</script>\n<template><p>{{ load }}</p></template>\n'
    expect(await refusals(vue, 'src/renderer/src/components/ProbeLoader.vue')).toEqual([
      expect.stringContaining('rails/literal-imports: import() of a computed path'),
    ])
  })

  it("lets through imports it can see, createRequire(…).resolve, require.resolve and .main, a parameter named require, a layer's own modules and packages handed on, and tests", async () => {
    expect(
      await refusals(
        "export const load = () => import('../sync/engine')\nexport const again = () => import(`../sync/engine`)\n",
      ),
    ).toEqual([])
    expect(
      await refusals(
        `${createRequire}export const tsx = createRequire(__filename).resolve('tsx/cjs')\nexport const also = require.resolve('tsx/cjs')\nexport const started = require.main === module\n`,
      ),
    ).toEqual([])
    expect(
      await refusals('export const call = (require: (name: string) => unknown, name: string) => require(name)\n'),
    ).toEqual([])
    expect(
      await refusals(
        "import { OrderDesk } from './desk'\nimport type { Database } from 'better-sqlite3'\nexport { OrderDesk, type Database }\n",
      ),
    ).toEqual([])
    expect(await refusals('export const load = (name: string) => import(name)\n', 'test/unit/probe.ts')).toEqual([])
  })
})

/** The rails of scripts/eslint/rails.mjs alone, with no file excepted. */
async function railsWithoutExceptions(): Promise<ESLint> {
  type Rails = (options: { oversized: []; reExporting: [] }) => Linter.Config[]
  const { rails } = (await import(pathToFileURL(join(root, 'scripts/eslint/rails.mjs')).href)) as { rails: Rails }
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
      ...rails({ oversized: [], reExporting: [] }),
    ],
  })
}

describe('files of a readable size (scripts/eslint/rails.mjs)', () => {
  const eslint = new ESLint({ cwd: root })
  /** `count` lines, blank ones and comments among them: all count. */
  const lines = (count: number) =>
    Array.from({ length: count }, (_, index) =>
      index % 3 === 0 ? '' : index % 3 === 1 ? `// line ${index}` : `export const line${index} = ${index}`,
    ).join('\n') + '\n'
  async function tooLong(code: string, filePath: string, using = eslint): Promise<string[]> {
    const [result] = await using.lintText(code, { filePath })
    return (result?.messages ?? []).filter((m) => m.ruleId === 'max-lines').map((m) => m.message)
  }
  const vue = (count: number) =>
    `<script setup lang="ts">\nconst shown = 1\n</script>\n<template><p>{{ shown }}</p></template>\n${'<!-- a line -->\n'.repeat(count - 4)}`

  it('refuses a source file of 601 lines, and lets 600 through', async () => {
    expect(await tooLong(lines(601), 'src/main/orders/probe.ts')).toEqual([
      'File has too many lines (601). Maximum allowed is 600.',
    ])
    expect(await tooLong(lines(600), 'src/main/orders/probe.ts')).toEqual([])
    expect(await tooLong(vue(601), 'src/renderer/src/views/ProbeView.vue')).toEqual([
      'File has too many lines (601). Maximum allowed is 600.',
    ])
    expect(await tooLong(vue(600), 'src/renderer/src/views/ProbeView.vue')).toEqual([])
  })

  it('lets a migration be as long as it is', async () => {
    expect(await tooLong(lines(601), 'src/main/db/migrations/0999-probe.ts')).toEqual([])
  })

  it('holds core/compose.ts to 150 lines (once it is off the exceptions)', async () => {
    const rails = await railsWithoutExceptions()
    expect(await tooLong(lines(151), 'src/main/core/compose.ts', rails)).toEqual([
      'File has too many lines (151). Maximum allowed is 150.',
    ])
    expect(await tooLong(lines(150), 'src/main/core/compose.ts', rails)).toEqual([])
    expect(await tooLong(lines(601), 'src/main/sync/engine.ts', rails)).toEqual([
      'File has too many lines (601). Maximum allowed is 600.',
    ])
  })
})

describe("eslint.config.mjs's temporary exceptions (issue #38)", () => {
  const eslint = new ESLint({ cwd: root })
  const off = (rule: Linter.RuleEntry | undefined) =>
    rule === 'off' || rule === 0 || (Array.isArray(rule) && (rule[0] === 'off' || rule[0] === 0))
  async function excepted(rule: string): Promise<string[]> {
    const sources = (readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }) as string[])
      .map((path) => `src/${path.split('\\').join('/')}`)
      .filter((path) => /\.(ts|vue)$/.test(path) && !path.startsWith('src/main/db/migrations/'))
    const configs = (await Promise.all(sources.map((path) => eslint.calculateConfigForFile(path)))) as Linter.Config[]
    return sources.filter((_, index) => off(configs[index]?.rules?.[rule]))
  }

  it('let through only files that still need it: drop an exception once its file is mended', async () => {
    const rails = await railsWithoutExceptions()
    const oversized = await excepted('max-lines')
    const reExporting = await excepted('rails/no-passing-on')
    // The configuration is read as eslint reads it: the size rule is on for a file of src/ (so an
    // empty list of exceptions means none, not a lookup that found nothing).
    const engine = (await eslint.calculateConfigForFile('src/main/sync/engine.ts')) as Linter.Config
    expect(engine.rules?.['max-lines']).toBeDefined()
    expect(off(engine.rules?.['max-lines'])).toBe(false)
    const listed = [...new Set([...oversized, ...reExporting])]
    const results = listed.length > 0 ? await rails.lintFiles(listed) : []
    const refused = (path: string, rule: string) =>
      results.some((result) => result.filePath === join(root, path) && result.messages.some((m) => m.ruleId === rule))
    expect(oversized.filter((path) => !refused(path, 'max-lines')).map((path) => `${path} fits its limit`)).toEqual([])
    expect(
      reExporting.filter((path) => !refused(path, 'rails/no-passing-on')).map((path) => `${path} hands on nothing`),
    ).toEqual([])
  })
})

describe('the formatter', () => {
  it('is part of npm run lint, at the width of .prettierrc.json, and refuses a file laid out otherwise', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.lint).toMatch(/^prettier --check\b.* \. && /)
    const prettier = await import('prettier')
    const options = { ...(await prettier.resolveConfig(join(root, 'src/main/core/compose.ts'))), parser: 'typescript' }
    expect(options.printWidth).toBe(120)
    const longCall = `export const total = sum(${Array.from({ length: 30 }, (_, i) => `value${i}`).join(', ')})\n`
    expect(await prettier.check(longCall, options)).toBe(false)
    expect(await prettier.check(await prettier.format(longCall, options), options)).toBe(true)
  })

  it('leaves no source file out of the check', () => {
    const ignored = readFileSync(join(root, '.prettierignore'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    expect(ignored.filter((line) => /^src\//.test(line))).toEqual([])
  })
})
