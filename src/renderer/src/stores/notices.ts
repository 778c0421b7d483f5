import { defineStore } from 'pinia'
import { ref } from 'vue'

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
  return { notices, push, dismiss }
})
