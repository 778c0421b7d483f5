import type { Database } from './database'

/** Per connection: how many ask for its checkpoints to wait, and the setting to put back after the last. */
const suspended = new WeakMap<Database, { count: number; checkpointPages: number }>()

/**
 * Stops this connection from checkpointing as it commits, while another connection on another
 * thread copies the WAL into the database; returns the function that undoes it. A sync (its writer
 * thread) and a purge (a checkpointing thread of its own) may each ask while the other has: the
 * setting found by the first is put back only when the last is done, whatever order they end in.
 */
export function leaveCheckpointsToAnotherThread(db: Database): () => void {
  const held = suspended.get(db)
  if (held) held.count++
  else {
    suspended.set(db, { count: 1, checkpointPages: db.pragma('wal_autocheckpoint', { simple: true }) as number })
    db.pragma('wal_autocheckpoint = 0')
  }
  let undone = false
  return () => {
    if (undone) return
    undone = true
    const current = suspended.get(db)
    if (!current) return
    current.count--
    if (current.count > 0) return
    suspended.delete(db)
    if (db.open) db.pragma(`wal_autocheckpoint = ${current.checkpointPages}`)
  }
}
