import { isNavigationFailure, NavigationFailureType, useRoute, useRouter } from 'vue-router'
import { useConnectionStore } from '../stores/connection'
import { useCustomersStore } from '../stores/customers'
import { useProfilesStore } from '../stores/profiles'
import { handOverEverything } from './hand-over'

/** Where the rep was in each profile, so switching back returns to the draft they left. */
const whereLeft = new Map<string, string>()

/**
 * A switch never loses typing and never lets an editor write into the other profile: whatever is
 * typed is handed over, the screen is left (editors unmount, handing over again) while the old
 * profile still answers, and only then does the other profile come on screen.
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
    const left = await router.push({ name: 'settings' })
    if (left && !isNavigationFailure(left, NavigationFailureType.duplicated)) return false
    await profiles.switchTo(id)
    customers.setCurrent(null)
    await connection.load()
    await router.push(whereLeft.get(id) ?? '/customers')
    return true
  }

  return { switchTo }
}
