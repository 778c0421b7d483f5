import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCore } from '../../src/main/core/compose'
import type { Core, CoreConfig } from '../../src/main/core/types'

export interface TestCore extends Core {
  directory: string
}

/** A core on a fresh database file in its own temporary folder, removed on close. */
export function createTestCore(overrides: Partial<CoreConfig> = {}): TestCore {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-test-'))
  const core = createCore({ databasePath: join(directory, 'satchel.db'), appVersion: '0.0.0-test', ...overrides })
  return {
    ...core,
    directory,
    async close() {
      await core.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
