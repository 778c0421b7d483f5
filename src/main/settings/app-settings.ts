import type { Settings, SettingsPatch } from '../../shared/contract'
import type { Database } from '../db/database'
import { SettingsTable } from '../db/settings'

/**
 * Half an hour between background syncs: a sync with nothing changed costs the service 8 requests, so
 * a laptop left open costs it 16 an hour, and a fleet of thousands stays within what the service was
 * asked to carry (at 15 minutes: 32). A rep who wants fresher stock sets it lower; Sync is one key.
 */
export const DEFAULT_SYNC_INTERVAL_MINUTES = 30

const defaultSettings: Settings = {
  syncIntervalMinutes: DEFAULT_SYNC_INTERVAL_MINUTES,
  remainInPreliminaryDefault: false,
  quoteValidityDays: 30,
  keepSentOrdersMonths: 24,
  keepExpiredQuotesDays: 90,
  orderDetailsPerSync: 200,
  // About 25,000 items' thumbnail and panel picture (docs/pictures.md).
  pictureBudgetMB: 1024,
  // Pictures help a customer choose from a quote; an order confirmation is a record, and prints leaner.
  picturesOnQuotes: true,
  picturesOnOrders: false,
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
