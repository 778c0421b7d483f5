import type { Settings, SettingsPatch } from '../../shared/contract'
import type { Database } from '../db/database'
import { SettingsTable } from '../db/settings'

const defaultSettings: Settings = {
  syncIntervalMinutes: 15,
  remainInPreliminaryDefault: false,
  quoteValidityDays: 30,
  keepSentOrdersMonths: 24,
  keepExpiredQuotesDays: 90,
  orderDetailsPerSync: 200,
}

/** The rep's settings (Settings screen), with their defaults; kept in the settings table, one key each. */
export class AppSettings {
  private readonly table: SettingsTable

  constructor(db: Database) {
    this.table = new SettingsTable(db)
  }

  get(): Settings {
    const stored = this.table.all()
    const settings: Settings = { ...defaultSettings }
    for (const key of Object.keys(defaultSettings) as (keyof Settings)[]) {
      if (key in stored) (settings as Record<string, unknown>)[key] = stored[key]
    }
    return settings
  }

  update(patch: SettingsPatch): Settings {
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) this.table.set(key, value)
    }
    return this.get()
  }
}
