import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { AppInfo, Settings, SettingsPatch } from '../../../shared/contract'
import type { AppError } from '../../../shared/result'
import { api, ApiError, unwrap } from '../api'

function toAppError(error: unknown): AppError {
  return error instanceof ApiError ? error.error : { code: 'INTERNAL', message: String(error) }
}

export const useAppStore = defineStore('app', () => {
  const info = ref<AppInfo | null>(null)
  const settings = ref<Settings | null>(null)
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
  }

  async function updateSettings(patch: SettingsPatch): Promise<boolean> {
    try {
      settings.value = await unwrap(api.updateSettings(patch))
      error.value = null
      return true
    } catch (caught) {
      error.value = toAppError(caught)
      return false
    }
  }

  api.onEvent((event) => {
    if (event.name === 'settingsChanged') settings.value = event.payload
  })

  return { info, settings, error, load, updateSettings }
})
