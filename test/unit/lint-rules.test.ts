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
