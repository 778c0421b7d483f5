import type { PiniaPluginContext } from 'pinia'

/** Everything each store holds for the profile on screen, undone when another profile comes on screen. */
const resets = new Set<() => void>()

/**
 * Remembers each store's state as it was made (before anything was loaded), so a profile switch puts
 * every store back to it: nothing of one supplier's data stays on screen under another's name. The
 * profiles store itself is left alone.
 */
export function profileResetPlugin({ store }: PiniaPluginContext): void {
  if (store.$id === 'profiles') return
  const initial = JSON.stringify(store.$state)
  resets.add(() =>
    store.$patch((state: Record<string, unknown>) => {
      const fresh = JSON.parse(initial) as Record<string, unknown>
      // JSON leaves out what was undefined at first: it is undefined again.
      for (const key of Object.keys(state)) state[key] = key in fresh ? fresh[key] : undefined
    }),
  )
}

/** For what a store keeps outside its state (caches of promises, sets): forgotten on a switch too. */
export function onProfileReset(forget: () => void): void {
  resets.add(forget)
}

export function resetProfileData(): void {
  for (const reset of resets) reset()
}
