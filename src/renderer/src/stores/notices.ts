import { defineStore } from 'pinia'
import { ref } from 'vue'
import { toAppError } from '../errors'

export interface Notice {
  id: number
  tone: 'info' | 'warning' | 'error'
  title: string
  /** One line each, e.g. the items a reorder could not copy. */
  lines: string[]
  /** Shown only while the route's path is this one (null: until dismissed). */
  path: string | null
}

/**
 * Messages that outlive a navigation, shown by the frame above the screen: a reorder says here which
 * items are no longer offered, whichever screen the new draft opens in.
 */
export const useNoticesStore = defineStore('notices', () => {
  const notices = ref<Notice[]>([])
  let nextId = 1

  function push(notice: Omit<Notice, 'id'>): number {
    const id = nextId++
    notices.value = [...notices.value, { ...notice, id }]
    return id
  }
  function dismiss(id: number): void {
    notices.value = notices.value.filter((notice) => notice.id !== id)
  }
  /**
   * For a call nobody waits on (a load at start-up, a refresh after an event): if the core refuses,
   * the rep is told what could not be done rather than left with a quietly empty or stale screen.
   * The same message is shown once, however often the refresh fails.
   */
  function failed(what: string): (error: unknown) => void {
    return (error) => {
      const title = `${what}: ${toAppError(error).message}`
      if (!notices.value.some((notice) => notice.title === title)) push({ tone: 'error', title, lines: [], path: null })
    }
  }
  return { notices, push, dismiss, failed }
})
