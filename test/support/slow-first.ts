import { relative } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/**
 * vitest's order of test files: the longest first, so the last files to finish are short ones and
 * both workers end together. vitest's own order uses the durations of the last run, which a fresh
 * clone (CI) does not have; there, the integration files (real CLI processes, doubles, SQLite on
 * disk) go first, largest first, as the slowest kind.
 */
export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { cache, config } = this.ctx
    const weight = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(config.root, spec.moduleId)}`
      const last = cache.getFileTestResults(key)?.duration
      if (last !== undefined) return last
      const size = cache.getFileStats(key)?.size ?? 0
      return (spec.moduleId.includes('/test/integration/') ? 10_000 : 0) + size / 10
    }
    return [...files].sort((a, b) => weight(b) - weight(a))
  }
}
