/** What the SIGKILL drills share: a CLI process to aim at, and the moment it has the database open. */
import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { root } from './support'

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface Ended {
  /** When the process first wrote to stdout (its report), if it did. */
  reportedAt: number | null
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** The CLI from source as a process of its own, with no SATCHEL_ variable but `env`'s. */
export function startCli(args: string[], env: Record<string, string>): { child: ChildProcess; ended: Promise<Ended> } {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SATCHEL_')))
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main/cli/index.ts'), ...args], {
    cwd: root,
    env: { ...clean, ...env },
  })
  let stdout = ''
  let stderr = ''
  let reportedAt: number | null = null
  child.stdout.on('data', (chunk: Buffer) => {
    reportedAt ??= Date.now()
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code, signal) => resolve({ reportedAt, code, signal, stdout, stderr })),
  )
  return { child, ended }
}

/** Waits until `child` has `path` open (it has reached the database), or has ended. */
export async function untilOpen(child: ChildProcess, path: string): Promise<void> {
  const opened = () => {
    try {
      return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${child.pid}/fd/${fd}`) === path
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  }
  while (child.exitCode === null && child.signalCode === null && !opened()) await sleep(5)
}

/**
 * Whole milliseconds between `low` and `high`, from a small generator of the drills' own (xorshift),
 * so a run can be repeated with --seed.
 */
export function seededBetween(seed: number): (low: number, high: number) => number {
  let state = seed >>> 0 || 1
  return (low, high) => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return Math.round(low + ((state >>> 0) / 2 ** 32) * (high - low))
  }
}
