/** How a command's result and progress reach the terminal: plain text, or one JSON object with --json. */
import type { Output } from './errors'

/**
 * With --json the result is held until the command has finished (closing the database included), so
 * a failure after it still leaves exactly one object on stdout: the result with the `error` added.
 */
export interface CliOutput extends Output {
  /** Prints the held JSON result, with `error` added when the command failed after producing it. */
  finish(error?: Record<string, unknown>): boolean
}

export function createOutput(json: boolean): CliOutput {
  const tty = !json && process.stderr.isTTY === true
  let drawn = false
  let held: Record<string, unknown> | null = null
  return {
    json,
    result(value, human) {
      if (json) held = value
      else process.stdout.write(human.endsWith('\n') ? human : `${human}\n`)
    },
    finish(error) {
      if (!json) return false
      const value = held === null ? error : error ? { ...held, ...error } : held
      held = null
      if (value === undefined) return false
      process.stdout.write(`${JSON.stringify(value)}\n`)
      return true
    },
    progress: tty
      ? (line) => {
          // A terminal that does not report its width (columns 0 or undefined) gets 80.
          const width = process.stderr.columns || 80
          process.stderr.write(`\r${line.slice(0, width - 1).padEnd(width - 1)}`)
          drawn = true
        }
      : null,
    endProgress() {
      if (drawn) process.stderr.write('\r\x1b[2K')
      drawn = false
    },
  }
}
