/**
 * The sync writer's thread gives way to the window's. A first sync keeps the writer busy for
 * seconds at a time, and on a two-core laptop the main thread (the window's IPC, the pages it
 * decodes) then waited for a CPU for up to 50 ms at a stretch behind it: the bench's longest
 * event-loop stalls were that wait, not work of the main thread's own. A thread with a higher nice
 * value still gets every CPU nobody else wants, so the writer loses no time when the main thread is
 * idle; it only stops taking the CPU from it.
 *
 * Linux only: there setpriority() takes a thread's id and changes that thread alone (see
 * setpriority(2), NOTES). Elsewhere the same call would change the whole process, so nothing is done.
 */
import { readlinkSync } from 'node:fs'
import { getPriority, setPriority } from 'node:os'

/** Nice value of the writer's thread: measured, 5 left the stalls as they were; 10 halved them. */
export const writerNice = 10

/** This thread's id, where the system tells it (Linux: /proc/thread-self links to /proc/<pid>/task/<tid>). */
export function thisThreadId(): number | null {
  if (process.platform !== 'linux') return null
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop())
    return Number.isInteger(tid) && tid > 0 ? tid : null
  } catch {
    return null
  }
}

/**
 * Lowers the calling thread's priority to `nice`; true when it did. Never raises it (that would
 * need privileges) and never throws: a writer at normal priority is slower for the window, not wrong.
 */
export function lowerThisThreadsPriority(nice: number = writerNice): boolean {
  const tid = thisThreadId()
  if (tid === null) return false
  try {
    if (getPriority(tid) >= nice) return true
    setPriority(tid, nice)
    return true
  } catch {
    return false
  }
}
