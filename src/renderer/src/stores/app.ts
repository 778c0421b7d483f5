// Folded into the settings store; kept as an alias for code written against the old name.
export { useSettingsStore as useAppStore } from './settings'
