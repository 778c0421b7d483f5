import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The renderer has one data path: a component or view asks a Pinia store or a composable, and only
 * those call the core through api.ts. A screen that called the core itself would keep its own copy
 * of what a store already holds (and refresh it on its own events), which is how the same data came
 * to be read twice and shown in two states.
 */
const rendererRoot = resolve(__dirname, '../../../src/renderer/src')
const apiModule = join(rendererRoot, 'api.ts')
/** Folders whose modules may import api.ts, relative to src/renderer/src. */
const allowed = ['stores', 'composables']

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|vue)$/.test(entry.name) ? [path] : []
  })
}

/** Every module specifier a file names: static and type imports, `export … from`, `import()` and `require()`. */
function specifiers(source: string): string[] {
  const found: string[] = []
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!)
  return found
}

function resolvesToApi(file: string, specifier: string): boolean {
  if (!specifier.startsWith('.') && !specifier.startsWith('/')) return false
  const target = resolve(dirname(file), specifier)
  return [target, `${target}.ts`, join(target, 'index.ts')].includes(apiModule)
}

function offenders(): string[] {
  return sourceFiles(rendererRoot)
    .filter((file) => file !== apiModule)
    .filter((file) => !allowed.some((folder) => relative(rendererRoot, file).startsWith(`${folder}${sep}`)))
    .filter((file) => specifiers(readFileSync(file, 'utf8')).some((specifier) => resolvesToApi(file, specifier)))
    .map((file) => relative(rendererRoot, file).split(sep).join('/'))
    .sort()
}

describe('the renderer’s data path', () => {
  it('finds an import of api.ts however it is spelled', () => {
    const file = join(rendererRoot, 'components', 'catalog', 'Probe.vue')
    const spellings = [
      "import { api } from '../../api'",
      "import { api, unwrap } from '../../api.ts'",
      "import type { ApiError } from '../../api'",
      "export { api } from '../../api'",
      "const { api } = await import('../../api')",
      "const { api } = require('../../api')",
      "import { api } from './../../components/../api'",
      `import { api } from '${apiModule.slice(0, -3)}'`,
    ]
    for (const spelling of spellings)
      expect(
        specifiers(spelling).some((specifier) => resolvesToApi(file, specifier)),
        spelling,
      ).toBe(true)
    expect(
      specifiers("import { api } from '../../api-extra'").some((specifier) => resolvesToApi(file, specifier)),
    ).toBe(false)
  })

  it('lets only stores and composables import api.ts', () => {
    expect(offenders()).toEqual([])
  })

  it('leaves window.satchel to api.ts', () => {
    const touching = sourceFiles(rendererRoot)
      .filter((file) => file !== apiModule && !file.endsWith('.d.ts'))
      .filter((file) => /\bwindow\.satchel\b/.test(readFileSync(file, 'utf8')))
    expect(touching).toEqual([])
  })
})
