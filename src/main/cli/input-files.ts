/**
 * Files the user names on the command line (a draft, addresses, a secret): read whole, as text, and
 * only if each is what it claims to be. A device or a pipe is refused before it is read (a FIFO
 * nobody writes to would hold the command for ever; /dev/zero would fill memory), and so is a file
 * larger than its kind ever needs. `-` reads standard input where a secret may come from it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { UsageError } from './errors'

function readAll(fd: number, maxBytes: number, name: string): string {
  const chunks: Buffer[] = []
  let total = 0
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024)
    let read: number
    try {
      read = readSync(fd, chunk, 0, chunk.length, null)
    } catch (error) {
      // Standard input set non-blocking by whoever started us: nothing more to read yet means the end.
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') break
      throw error
    }
    if (read === 0) break
    total += read
    if (total > maxBytes) throw new UsageError(`${name} is larger than ${maxBytes.toLocaleString('en-US')} bytes`)
    chunks.push(chunk.subarray(0, read))
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The file at `path` as text: a regular file of at most `maxBytes`, else a UsageError that says what it is. */
export function readUserFile(path: string, maxBytes: number, options: { stdin?: boolean } = {}): string {
  if (path === '-' && options.stdin) return readAll(0, maxBytes, 'standard input')
  let fd: number
  try {
    // Non-blocking, so opening a FIFO with no writer returns at once and is refused below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`)
  }
  try {
    const stat = fstatSync(fd)
    if (stat.isDirectory()) throw new UsageError(`${path} is a folder, not a file`)
    if (!stat.isFile()) throw new UsageError(`${path} is not a regular file (a device, a pipe or a socket)`)
    if (stat.size > maxBytes) throw new UsageError(`${path} is larger than ${maxBytes.toLocaleString('en-US')} bytes`)
    return readAll(fd, maxBytes, path)
  } finally {
    closeSync(fd)
  }
}
