import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'

/**
 * Opens a zip with Info-ZIP's unzip (installed by .ci/run), not with code of ours, so a test reads
 * the archive as a support engineer's tools would. Checks every entry's CRC first (`unzip -t`).
 */
export function unzipAll(archive: Buffer): Map<string, string> {
  const directory = mkdtempSync(join(tmpdir(), 'satchel-unzip-'))
  try {
    const file = join(directory, 'archive.zip')
    writeFileSync(file, archive)
    execFileSync('unzip', ['-tq', file], { stdio: 'pipe' })
    const out = join(directory, 'out')
    execFileSync('unzip', ['-q', file, '-d', out], { stdio: 'pipe' })
    const files = new Map<string, string>()
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) walk(path)
        else files.set(relative(out, path), readFileSync(path, 'utf8'))
      }
    }
    walk(out)
    return files
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}
