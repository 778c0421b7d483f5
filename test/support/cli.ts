/** Runs the `satchel` CLI as a user does: a real child process, with no SATCHEL_* leaking in from the test run. */
import { execFile } from 'node:child_process'
import { join, resolve } from 'node:path'
import { expect } from 'vitest'

export const root = resolve(__dirname, '../..')
const entry = join(root, 'src/main/cli/index.ts')

export interface Run {
  code: number
  stdout: string
  stderr: string
}

export function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
    execFile(
      process.execPath,
      ['--import', 'tsx', entry, ...args],
      { cwd: root, env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        done({ code, stdout, stderr })
      },
    )
  })
}

/** Exactly one JSON object on stdout, and nothing else. */
export function json(run: Run): Record<string, unknown> {
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '')
  expect(lines).toHaveLength(1)
  const value: unknown = JSON.parse(lines[0]!)
  expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true)
  return value as Record<string, unknown>
}
