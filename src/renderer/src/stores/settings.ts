import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { AppInfo, PictureStatus, Settings, SettingsPatch } from '../../../shared/contract'
import type { UpdateState } from '../../../shared/desktop'
import type { AppError } from '../../../shared/result'
import { api, unwrap } from '../api'
import { toAppError } from '../errors'

/** The app's version and database (its size, the last purge), the rep's settings, the updater's state, the support bundle. */
export const useSettingsStore = defineStore('settings', () => {
  const info = ref<AppInfo | null>(null)
  const settings = ref<Settings | null>(null)
  const updateState = ref<UpdateState | null>(null)
  const pictures = ref<PictureStatus | null>(null)
  const error = ref<AppError | null>(null)

  async function load(): Promise<void> {
    try {
      const [loadedInfo, loadedSettings] = await Promise.all([unwrap(api.getAppInfo()), unwrap(api.getSettings())])
      info.value = loadedInfo
      settings.value = loadedSettings
      error.value = null
    } catch (caught) {
      error.value = toAppError(caught)
    }
    try {
      updateState.value = await unwrap(api.getUpdateState())
    } catch {
      updateState.value = null
    }
    await loadPictures()
  }

  /** Beside the budget setting; a failure to read it leaves the line out, not the screen. */
  async function loadPictures(): Promise<void> {
    try {
      pictures.value = await unwrap(api.getPictureStatus())
    } catch {
      pictures.value = null
    }
  }

  async function updateSettings(patch: SettingsPatch): Promise<boolean> {
    try {
      settings.value = await unwrap(api.updateSettings(patch))
      error.value = null
      await loadPictures()
      return true
    } catch (caught) {
      error.value = toAppError(caught)
      return false
    }
  }

  async function checkForUpdates(): Promise<void> {
    updateState.value = await unwrap(api.checkForUpdates())
  }

  async function restartToUpdate(): Promise<'restarting' | 'not-ready' | 'outbox-busy'> {
    return (await unwrap(api.restartToUpdate())).outcome
  }

  async function openLogsFolder(): Promise<void> {
    await unwrap(api.openLogsFolder())
  }

  /** Asks where, then saves the support bundle; the path written, or null when the rep cancelled. */
  async function exportSupportBundle(): Promise<string | null> {
    return (await unwrap(api.exportSupportBundle())).path
  }

  api.onEvent((event) => {
    if (event.name === 'settingsChanged') settings.value = event.payload
    else if (event.name === 'updateStateChanged') updateState.value = event.payload
  })

  return {
    info,
    settings,
    updateState,
    pictures,
    error,
    load,
    updateSettings,
    checkForUpdates,
    restartToUpdate,
    openLogsFolder,
    exportSupportBundle,
  }
})
