/**
 * `npm run demo` builds the renderer only when its sources changed since the last build; the
 * environment can force a build or skip it.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { rendererNeedsBuild } from '../../../scripts/renderer-build'

let root: string
const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds)

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'satchel-demo-build-'))
  for (const dir of ['src/renderer/src', 'src/shared', 'src/main', 'out/renderer'])
    mkdirSync(join(root, dir), { recursive: true })
  for (const file of ['src/renderer/src/App.vue', 'src/shared/contract.ts', 'src/main/index.ts', 'package.json'])
    writeFileSync(join(root, file), '')
  for (const file of ['src/renderer/src/App.vue', 'src/shared/contract.ts', 'src/main/index.ts', 'package.json'])
    at(file, 1_000)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('the demo’s renderer build', () => {
  it('is made when there is none, and when a source changed after it; not otherwise', () => {
    expect(rendererNeedsBuild(root, undefined)).toBe(true)
    writeFileSync(join(root, 'out/renderer/index.html'), '')
    at('out/renderer/index.html', 2_000)
    expect(rendererNeedsBuild(root, undefined)).toBe(false)
    // The core is not in the renderer's build.
    at('src/main/index.ts', 3_000)
    expect(rendererNeedsBuild(root, undefined)).toBe(false)
    at('src/shared/contract.ts', 3_000)
    expect(rendererNeedsBuild(root, undefined)).toBe(true)
  })

  it('is always made with SATCHEL_DEMO_REBUILD=1, and never over an existing one with =0', () => {
    writeFileSync(join(root, 'out/renderer/index.html'), '')
    at('out/renderer/index.html', 2_000)
    expect(rendererNeedsBuild(root, '1')).toBe(true)
    at('src/renderer/src/App.vue', 3_000)
    expect(rendererNeedsBuild(root, '0')).toBe(false)
    rmSync(join(root, 'out/renderer/index.html'))
    expect(rendererNeedsBuild(root, '0')).toBe(true)
  })
})
