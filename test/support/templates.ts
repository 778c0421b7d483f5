/**
 * vitest's globalSetup: one folder for the run's synced templates (synced-template.ts), shared by
 * every worker, removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'satchel-templates-'))
  process.env.SATCHEL_TEST_TEMPLATES = folder
  return () => rmSync(folder, { recursive: true, force: true })
}
