/**
 * A database about to be deleted with its profile is fenced first, so that no process can be told a
 * write succeeded that lands in a file nobody will read again.
 *
 * Deleting a file does not stop a process that has it open: SQLite keeps writing to the unlinked
 * inode and reports success: an order reported queued would be in no file on disk, a sync's rows
 * reported written would be nowhere. A lock alone cannot help either, as a writer waiting
 * for it gets it the moment the remover lets go, after the delete. So the fence is in the file
 * itself: in one write transaction, holding SQLite's write lock so nothing can commit between the
 * look and the fence, the remover checks what the database holds and adds triggers that refuse
 * every insert, update and delete. Every connection, in any process and on any thread (the sync's
 * writer too), sees them at its next statement, however long it had the file open, and its write
 * fails with fenceMessage instead of vanishing.
 */
import type { Database } from 'better-sqlite3'

const fenceMessage = 'satchel: this profile was removed'

const triggerPrefix = 'satchel_removed_'

/** The tables a write could go to: SQLite's own and FTS5's shadow tables take no triggers, and change only with a table that does. */
function writableTables(db: Database): string[] {
  return db
    .prepare<[], { name: string }>(
      "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    )
    .all()
    .map((row) => row.name)
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Runs `check` inside a write transaction and, if it returns, fences the database before that
 * transaction commits. `check` throws to refuse (orders still unsent, a sync running): the
 * transaction is rolled back and nothing is fenced.
 */
export function fenceForRemoval<T>(db: Database, check: () => T): T {
  const result = db
    .transaction(() => {
      const value = check()
      for (const table of writableTables(db)) {
        for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
          const trigger = quoted(`${triggerPrefix}${table}_${event.toLowerCase()}`)
          db.exec(
            `CREATE TRIGGER IF NOT EXISTS ${trigger} BEFORE ${event} ON ${quoted(table)} BEGIN SELECT RAISE(ABORT, '${fenceMessage}'); END`,
          )
        }
      }
      return value
    })
    .immediate()
  // The fence goes into the main file where it can: a process whose connection opened the file but
  // not yet its -wal (the instant between open and first read) would otherwise make a new, empty
  // -wal once the old one is deleted, and not see the fence. Readers on an older snapshot may keep
  // the checkpoint from finishing; they have the -wal open and see the fence there.
  try {
    db.pragma('wal_checkpoint(TRUNCATE)')
  } catch {
    // best effort, as above
  }
  return result
}

/** Whether `error` is a write refused by the fence: the profile was removed while this process had its database open. */
export function isFencedWrite(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  return (
    typeof code === 'string' &&
    code.startsWith('SQLITE_CONSTRAINT') &&
    typeof message === 'string' &&
    message.includes(fenceMessage)
  )
}
