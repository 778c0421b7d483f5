import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../../src/main/core/compose'
import type { Core, CoreConfig } from '../../src/main/core/types'

export interface TestCore extends Core {
  directory: string
}

export interface TestCoreOptions extends Partial<CoreConfig> {
  /** A database file to copy in and open, instead of a fresh one: a test that starts where another left off. */
  startFrom?: string
}

/** A core on its own database file in its own temporary folder, removed on close. */
export function createTestCore({ startFrom, ...overrides }: TestCoreOptions = {}): TestCore {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-test-'))
  const databasePath = join(directory, 'satchel.db')
  if (startFrom) copyFileSync(startFrom, databasePath)
  const core = createCore({ databasePath, appVersion: '0.0.0-test', ...overrides })
  return {
    ...core,
    directory,
    async close() {
      await core.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
