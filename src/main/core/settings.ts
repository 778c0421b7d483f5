import type { Settings, SettingsPatch } from '../../shared/contract'
import type { Database } from '../db/database'

const defaultSettings: Settings = {
  syncIntervalMinutes: 15,
  remainInPreliminaryDefault: false,
  quoteValidityDays: 30,
}

/** Settings kept as one JSON value per key, so adding a setting needs no migration. */
export class SettingsRepository {
  private readonly selectAll
  private readonly upsert

  constructor(db: Database) {
    this.selectAll = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings')
    this.upsert = db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    )
  }

  get(): Settings {
    const stored: Record<string, unknown> = {}
    for (const row of this.selectAll.all()) stored[row.key] = JSON.parse(row.value)
    const settings: Settings = { ...defaultSettings }
    for (const key of Object.keys(defaultSettings) as (keyof Settings)[]) {
      if (key in stored) (settings as Record<string, unknown>)[key] = stored[key]
    }
    return settings
  }

  update(patch: SettingsPatch): Settings {
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined) this.upsert.run(key, JSON.stringify(value))
    }
    return this.get()
  }
}
