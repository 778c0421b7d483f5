/**
 * Runs the `satchel` CLI as a user does: a real child process, with no SATCHEL_* leaking in from the
 * test run. The CLI as built with the app (out/main/cli.js), which vitest's globalSetup builds when
 * it is older than the source (cli-build.ts), so the tests run what `npm run cli` runs.
 */
import { execFile } from 'node:child_process'
import { resolve } from 'node:path'
import { expect } from 'vitest'
import { builtCli } from '../../scripts/cli-build.cjs'

export const root = resolve(__dirname, '../..')
/** The built CLI's entry: `node <cliEntry> …args`. */
export const cliEntry = builtCli

export interface Run {
  code: number
  stdout: string
  stderr: string
}

/** `input`: written to the CLI's standard input, which is then closed (a secret given with `-`). */
export function cli(
  args: string[],
  env: Record<string, string> = {},
  { input }: { input?: string } = {},
): Promise<Run> {
  return new Promise((done) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
    const child = execFile(
      process.execPath,
      [cliEntry, ...args],
      { cwd: root, env: { ...clean, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        done({ code, stdout, stderr })
      },
    )
    if (input !== undefined) child.stdin?.end(input)
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
