import { homedir } from 'node:os'
import { join } from 'node:path'

const appDirectoryName = 'Satchel'
export const databaseFileName = 'satchel.db'

/**
 * Where the desktop app keeps its data: the same folder Electron's app.getPath('userData') gives for
 * productName "Satchel", computed without Electron so the CLI finds the app's database by default.
 */
function userDataDirectory(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), appDirectoryName)
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', appDirectoryName)
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), appDirectoryName)
}

/** The folder holding the profiles list and every profile's database: the desktop app's userData. */
export function defaultDataDirectory(): string {
  return userDataDirectory()
}

/** Where the desktop app writes its logs: Electron's app.getPath('logs') for productName "Satchel". */
export function defaultLogsDirectory(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Logs', appDirectoryName)
  return join(userDataDirectory(), 'logs')
}
