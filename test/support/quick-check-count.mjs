/**
 * Loaded with `node --import` into a CLI child process: every PRAGMA quick_check it runs is written
 * as a line to the file TEST_QUICK_CHECK_LOG names, so a test can count how often a command read a
 * whole database file (the CLI must do so only once damage is suspected, and once per file).
 */
import { appendFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const log = process.env.TEST_QUICK_CHECK_LOG
if (log) {
  // The CLI's own better-sqlite3: one module, so one prototype, whichever file requires it.
  const Database = createRequire(import.meta.url)('better-sqlite3')
  const pragma = Database.prototype.pragma
  Database.prototype.pragma = function (source, options) {
    if (/^\s*quick_check/i.test(source)) appendFileSync(log, `${source.trim()}\n`)
    return pragma.call(this, source, options)
  }
}
