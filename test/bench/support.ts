/** What the benchmarks share: the double in its own process, and how results are printed and kept. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'

export const root = resolve(__dirname, '../..')

export interface Double {
  url: string
  apiKey: string
  apiSecret: string
  process: ChildProcess
}

/**
 * Starts `npm run service` in a child process, as the real service would be, so this process's time,
 * memory and event-loop stalls are Satchel's alone; reads its address and API key from what it prints.
 */
/**
 * The double in a child process; `compress: false` has it answer uncompressed (its `--no-compress`),
 * `cacheReplies` puts its reply cache in front of it (`--cache-replies`): a page compressed once, by
 * the bench's warm-up, is served as sent after that, as a CDN or a caching proxy would serve it.
 */
export async function startDouble(
  size: string,
  options: { compress?: boolean; cacheReplies?: boolean } = {},
): Promise<Double> {
  const args = [
    '--import',
    'tsx',
    join(root, 'test/service/main.ts'),
    '--size',
    size,
    '--port',
    '0',
    '--control',
    '--seed',
    '1',
  ]
  if (options.compress === false) args.push('--no-compress')
  if (options.cacheReplies) args.push('--cache-replies')
  const child = spawn(process.execPath, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = createInterface({ input: child.stdout! })
  let url = ''
  let apiKey = ''
  let apiSecret = ''
  for await (const line of lines) {
    url ||= /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? ''
    apiKey ||= /x-apiKey: (\S+)/.exec(line)?.[1] ?? ''
    apiSecret ||= /x-apiSecret: (\S+)/.exec(line)?.[1] ?? ''
    if (line.startsWith('Ctrl+C')) break
  }
  if (!url || !apiKey || !apiSecret) throw new Error('the double did not print its address and API key')
  child.stdout!.resume()
  return { url, apiKey, apiSecret, process: child }
}

export async function control(double: Double, method: string, args: Record<string, unknown>): Promise<unknown> {
  const send = () =>
    fetch(`${double.url}/__control/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
    })
  let response: Response
  try {
    response = await send()
  } catch (error) {
    // A pooled connection the double closed while idle (the bench pauses for the insert runs) can
    // fail the first request on it; the request never reached the handler, so it goes once more.
    process.stderr.write(`control ${method}: ${String((error as Error).cause ?? error)}; trying once more\n`)
    response = await send()
  }
  if (!response.ok) throw new Error(`control ${method} failed: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { result: unknown }).result
}

export async function controlGet(double: Double, method: string, query: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(`${double.url}/__control/${method}?${new URLSearchParams(query)}`)
  if (!response.ok) throw new Error(`control ${method} failed: ${response.status}`)
  return ((await response.json()) as { result: unknown }).result
}

/** Prints a Measure | Value | Target | Result table. */
export function printTable(rows: string[][]): void {
  const header = ['Measure', 'Value', 'Target', 'Result']
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')
  process.stdout.write(
    `\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(line).join('\n')}\n`,
  )
}

/** Writes the run's figures to test/bench/results/<name>-<time>.json (git-ignored) and says where. */
export function writeResults(name: string, results: { at: string }): string {
  const directory = join(root, 'test/bench/results')
  mkdirSync(directory, { recursive: true })
  const file = join(directory, `${name}-${results.at.replace(/[:.]/g, '-')}.json`)
  writeFileSync(file, JSON.stringify(results, null, 2) + '\n')
  process.stdout.write(`\nWrote ${file}\n`)
  return file
}

/** A process's CPU seconds so far, user and system (Linux's /proc; 0 elsewhere). */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command's closing parenthesis.
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * CPU seconds the double's process and this one use from now on: call the answer when the run is
 * over. The two share the machine's cores, so what the double used is time Satchel could not.
 */
export function cpuMeter(double: Double): () => { double: number; satchel: number } {
  const doubleBefore = processCpuSeconds(double.process.pid)
  const satchelBefore = process.cpuUsage()
  return () => {
    const satchel = process.cpuUsage(satchelBefore)
    return {
      double: +(processCpuSeconds(double.process.pid) - doubleBefore).toFixed(2),
      satchel: +((satchel.user + satchel.system) / 1e6).toFixed(2),
    }
  }
}
