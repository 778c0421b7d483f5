import { ref } from 'vue'
import { isNavigationFailure, NavigationFailureType, useRoute, useRouter } from 'vue-router'
import { useConnectionStore } from '../stores/connection'
import { useCustomersStore } from '../stores/customers'
import { useProfilesStore } from '../stores/profiles'
import { handOverEverything } from './hand-over'

/** Where the rep was in each profile, so switching back returns to the draft they left. */
const whereLeft = new Map<string, string>()

/** True from leaving the old profile's screen until the other profile's is shown (SwitchingView waits on it). */
export const switchUnderWay = ref(false)

/**
 * A switch never loses typing and never lets an editor write into the other profile: whatever is
 * typed is handed over, the screen is left (editors unmount, handing over again) while the old
 * profile still answers, and only then does the other profile come on screen. The screen left for is
 * the switch's own (SwitchingView), never one of the old profile's: Settings was, and flashed by with
 * the old profile's connection on it.
 */
export function useProfileSwitch() {
  const router = useRouter()
  const route = useRoute()
  const profiles = useProfilesStore()
  const connection = useConnectionStore()
  const customers = useCustomersStore()

  async function switchTo(id: string): Promise<boolean> {
    const leaving = profiles.onScreen
    if (!leaving || leaving.id === id || profiles.switching) return false
    whereLeft.set(leaving.id, route.fullPath)
    handOverEverything()
    switchUnderWay.value = true
    try {
      const left = await router.push({ name: 'switching' })
      if (left && !isNavigationFailure(left, NavigationFailureType.duplicated)) return false
      await profiles.switchTo(id)
      customers.setCurrent(null)
      await connection.load()
      await router.push(whereLeft.get(id) ?? '/customers')
      return true
    } finally {
      switchUnderWay.value = false
    }
  }

  return { switchTo }
}
