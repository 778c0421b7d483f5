import { ref, type Ref } from 'vue'
import type { AppError } from '../../shared/result'
import { toAppError } from './errors'

export interface Action<Key> {
  /** Which action runs (buttons disable on it), null when none. */
  busy: Ref<Key | null>
  /** The core's error from the last action that failed. */
  error: Ref<AppError | null>
  /** Runs `work` as action `key`; never throws, and answers what the work returned, or null when it failed. */
  run: <T>(key: Key, work: () => Promise<T>) => Promise<T | null>
}

/**
 * A screen's actions that call the core. `error` is cleared when an action starts; with
 * `clearError: 'onSuccess'` the last failure stays on screen until an action goes through instead,
 * for a screen the rep keeps editing while one change is refused.
 */
export function useAction<Key>(options: { clearError?: 'onStart' | 'onSuccess' } = {}): Action<Key> {
  const busy = ref(null) as Ref<Key | null>
  const error = ref<AppError | null>(null)
  const clearOnStart = options.clearError !== 'onSuccess'
  async function run<T>(key: Key, work: () => Promise<T>): Promise<T | null> {
    busy.value = key
    if (clearOnStart) error.value = null
    try {
      const value = await work()
      error.value = null
      return value
    } catch (caught) {
      error.value = toAppError(caught)
      return null
    } finally {
      busy.value = null
    }
  }
  return { busy, error, run }
}

/** Runs `work` (a watcher's, a handler's); a failure lands in `into` as the core's message instead of escaping. */
export async function catchInto(into: Ref<string | null>, work: () => Promise<unknown>): Promise<void> {
  try {
    await work()
  } catch (caught) {
    into.value = toAppError(caught).message
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
  })
}
