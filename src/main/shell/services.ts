/**
 * What the shell offers the rest of the app beyond the core's contract. The renderer reaches none of
 * this yet: the lead adds contract methods and events (Settings: version and update state, "Restart
 * to update", "Open logs folder", the online indicator; sign-out's question) and implements them
 * with these functions. index.ts builds the one instance, `desktopServices()`.
 */
import type { ConnectivityMonitor } from '../connectivity'
import type { UpdateController } from './updater'

export interface DesktopServices {
  connectivity: ConnectivityMonitor
  updates: UpdateController
  /** Opens the log folder in the file manager; resolves to an error message, or null on success. */
  openLogsFolder(): Promise<string | null>
  /** Asks before signing out with unsent orders; true when sign-out may proceed. */
  confirmSignOut(): Promise<boolean>
  /** Why secrets cannot be stored on this machine (shown beside the connection form), or null. */
  secretStorageProblem(): string | null
}

let current: DesktopServices | undefined

/** Called once by index.ts when the shell is up. */
export function provideDesktopServices(services: DesktopServices): void {
  current = services
}

/** The shell's services, for code that runs after start-up (contract handlers the lead adds). */
export function desktopServices(): DesktopServices {
  if (!current) throw new Error('The desktop shell has not started yet.')
  return current
}
