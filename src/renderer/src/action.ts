import { ref, type Ref } from 'vue'
import type { AppError } from '../../shared/result'
import { toAppError } from './errors'

/**
 * A screen's buttons that call the core: `busy` says which action runs (the buttons disable on it),
 * `error` is cleared when one starts and holds the core's error when it fails. `run` never throws; it
 * says whether the work went through.
 */
export function useAction<Key>(): { busy: Ref<Key | null>; error: Ref<AppError | null>; run: (key: Key, work: () => Promise<unknown>) => Promise<boolean> } {
  const busy = ref(null) as Ref<Key | null>
  const error = ref<AppError | null>(null)
  async function run(key: Key, work: () => Promise<unknown>): Promise<boolean> {
    busy.value = key
    error.value = null
    try {
      await work()
      return true
    } catch (caught) {
      error.value = toAppError(caught)
      return false
    } finally {
      busy.value = null
    }
  }
  return { busy, error, run }
}

/** `work` as a watcher or handler whose failure lands in `into` as the core's message instead of escaping. */
export function catchInto<Args extends unknown[]>(into: Ref<string | null>, work: (...args: Args) => Promise<unknown>): (...args: Args) => Promise<void> {
  return async (...args) => {
    try {
      await work(...args)
    } catch (caught) {
      into.value = toAppError(caught).message
    }
  }
}

/**
 * Work whose outcome is one sentence in `message`: cleared when it starts, then what the work returns
 * (nothing, to say nothing) or the core's message when it fails.
 */
export async function reportIn(message: Ref<string | null>, work: () => Promise<string | null | void>): Promise<void> {
  message.value = null
  await catchInto(message, async () => {
    message.value = (await work()) ?? null
  })()
}
