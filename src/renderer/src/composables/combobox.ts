import { computed, ref, type ComputedRef, type Ref } from 'vue'
import { toAppError } from '../errors'

/** How long typing rests before a search goes out: a fast typist or a scanner still makes one. */
const restMs = 25

export interface ComboboxOptions<T> {
  /** Each option's element id is `${idPrefix}-${index}`, which aria-activedescendant names. */
  idPrefix: string
  /** The matches for the text, trimmed and never empty. */
  search: (text: string) => Promise<T[]>
  /** Enter (or the component's pointer handler) takes this option. */
  choose: (option: T) => void
  /**
   * Whether the first match is active as soon as matches arrive (Enter takes it and it is marked), or
   * none is until an arrow key moves there (Enter still takes the first).
   */
  activateFirst: boolean
  /** Whether a failed search opens the list to say why; otherwise the list is only emptied. */
  sayFailure: boolean
  /**
   * Asked first on Escape: answers true when the component handled it (the customer picker puts the
   * chosen name back, open list or not). Otherwise Escape closes a list that shows matches.
   */
  escape?: () => boolean
}

interface Combobox<T> {
  results: Ref<T[]>
  /** The index of the active option, -1 for none. */
  active: Ref<number>
  open: Ref<boolean>
  /** Why the last search failed, when `sayFailure` is set; null after one answers. */
  failed: Ref<string | null>
  /** For aria-activedescendant: the active option's id while the list is open. */
  activeId: ComputedRef<string | undefined>
  /** Searches for the text once typing rests; empty text closes the list and drops any answer on its way. */
  search(text: string): void
  close(): void
  /** The combobox keys: arrows move through the matches (wrapping), Enter chooses, Escape closes. */
  onKeydown(event: KeyboardEvent): void
}

/**
 * One editable combobox with list autocomplete (the WAI-ARIA combobox pattern) for every picker:
 * the customer picker and the order screen's item finder share the search timing, the guard against
 * an older answer landing after a newer one, and the keys. The component keeps its markup, its
 * pointer handling and what choosing means.
 */
export function useCombobox<T>(options: ComboboxOptions<T>): Combobox<T> {
  const results = ref([]) as Ref<T[]>
  const active = ref(-1)
  const open = ref(false)
  const failed = ref<string | null>(null)
  let generation = 0
  let timer: ReturnType<typeof setTimeout> | undefined

  function search(text: string): void {
    clearTimeout(timer)
    const value = text.trim()
    if (value === '') {
      generation++
      results.value = []
      open.value = false
      return
    }
    timer = setTimeout(async () => {
      const mine = ++generation
      try {
        const found = await options.search(value)
        if (mine !== generation) return
        results.value = found
        failed.value = null
        active.value = options.activateFirst && found.length > 0 ? 0 : -1
        open.value = true
      } catch (error) {
        if (mine !== generation) return
        results.value = []
        if (!options.sayFailure) return
        failed.value = toAppError(error).message
        open.value = true
      }
    }, restMs)
  }

  function close(): void {
    open.value = false
  }

  function onKeydown(event: KeyboardEvent): void {
    if (event.key === 'Escape' && options.escape?.()) {
      event.preventDefault()
      return
    }
    const count = results.value.length
    if (!open.value || count === 0) return
    if (event.key === 'ArrowDown') active.value = (active.value + 1) % count
    else if (event.key === 'ArrowUp') active.value = (active.value - 1 + count) % count
    else if (event.key === 'Enter') options.choose(results.value[Math.max(0, active.value)]!)
    else if (event.key === 'Escape') close()
    else return
    event.preventDefault()
  }

  const activeId = computed(() => (open.value && active.value >= 0 ? `${options.idPrefix}-${active.value}` : undefined))

  return { results, active, open, failed, activeId, search, close, onKeydown }
}
