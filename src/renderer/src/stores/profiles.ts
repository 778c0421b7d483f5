import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { ProfileSummary } from '../../../shared/profiles'
import { api, unwrap } from '../api'
import { resetProfileData } from './profile-reset'

/**
 * The profiles on this laptop (one per supplier connection) with their unsent and needs-attention
 * counts. A window whose core has no profile manager (one database, e.g. a test bridge) has none to
 * show: `available` stays false and the switcher hides.
 */
export const useProfilesStore = defineStore('profiles', () => {
  const profiles = ref<ProfileSummary[]>([])
  const available = ref(false)
  /** Bumped on every switch, so what is keyed to it (the screen) starts again. */
  const epoch = ref(0)
  const switching = ref(false)

  const onScreen = computed(() => profiles.value.find((profile) => profile.onScreen) ?? null)

  async function load(): Promise<void> {
    const result = await api.listProfiles()
    available.value = result.ok
    if (result.ok) profiles.value = result.value.profiles
  }

  /** Puts the profile on screen and forgets everything the stores held for the one before. */
  async function switchTo(id: string): Promise<void> {
    switching.value = true
    try {
      profiles.value = (await unwrap(api.switchProfile({ id }))).profiles
      resetProfileData()
      epoch.value++
    } finally {
      switching.value = false
    }
  }

  async function add(name: string): Promise<ProfileSummary> {
    profiles.value = (await unwrap(api.addProfile({ name }))).profiles
    const added = profiles.value.find((profile) => profile.name.toLowerCase() === name.trim().toLowerCase())
    if (!added) throw new Error('The new profile is not in the list.')
    return added
  }

  async function remove(id: string): Promise<void> {
    profiles.value = (await unwrap(api.removeProfile({ id }))).profiles
  }

  api.onEvent((event) => {
    if (event.name === 'profilesChanged') {
      const before = onScreen.value?.id
      profiles.value = event.payload.profiles
      available.value = true
      const now = onScreen.value?.id
      // Another profile came on screen, not by this window's switch (the demo connecting its profiles,
      // the bridge's other page): the window follows, keeping nothing of the one before.
      if (before && now && before !== now && !switching.value) {
        resetProfileData()
        epoch.value++
      }
    }
  })

  return { profiles, available, epoch, switching, onScreen, load, switchTo, add, remove }
})
