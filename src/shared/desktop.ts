/**
 * Connectivity, updates and the log folder as the renderer sees them. Connectivity comes from the
 * core in every window; updates and the log folder only from the desktop app (elsewhere they say so).
 */
import { z } from 'zod'

export const connectivitySchema = z.object({
  /** True only when the configured ordering service itself answered the last check. */
  online: z.boolean(),
  status: z.enum(['unknown', 'online', 'offline', 'captive-portal', 'unreachable', 'not-configured']),
  /** A sentence for the rep: why Satchel thinks it is offline, never an error code. */
  detail: z.string(),
  /** The technical reason (ECONNREFUSED, a timeout, a portal's host), for the log and a "details" disclosure; null when online. */
  cause: z.string().nullable(),
  /** Epoch ms of the last completed check; null before the first. */
  checkedAt: z.number().nullable(),
})
export type Connectivity = z.infer<typeof connectivitySchema>

export const updateStateSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('disabled'), currentVersion: z.string(), reason: z.string() }),
  z.object({ status: z.literal('idle'), currentVersion: z.string(), lastCheckedAt: z.number().nullable() }),
  z.object({ status: z.literal('checking'), currentVersion: z.string(), lastCheckedAt: z.number().nullable() }),
  z.object({ status: z.literal('downloading'), currentVersion: z.string(), version: z.string(), percent: z.number() }),
  /** Downloaded: "Restart to update" is offered. */
  z.object({ status: z.literal('ready'), currentVersion: z.string(), version: z.string() }),
  /** The rep asked to restart while an order was being sent; the restart follows when it is done. */
  z.object({ status: z.literal('waiting-for-outbox'), currentVersion: z.string(), version: z.string() }),
  z.object({ status: z.literal('installing'), currentVersion: z.string(), version: z.string() }),
  z.object({
    status: z.literal('error'),
    currentVersion: z.string(),
    message: z.string(),
    lastCheckedAt: z.number().nullable(),
  }),
])
export type UpdateState = z.infer<typeof updateStateSchema>

const none = z.undefined()

export const desktopContract = {
  getConnectivity: { input: none, output: connectivitySchema },
  /** Checks the service now (the status bar's "retry"), and answers the new state. */
  checkConnectivity: { input: none, output: connectivitySchema },
  /**
   * Whether the rep can see the window. While they can, the service is checked every few seconds, so
   * the status bar turns within 10 s of the service going away or coming back.
   */
  setWindowVisible: { input: z.object({ visible: z.boolean() }).strict(), output: z.null() },
  getUpdateState: { input: none, output: updateStateSchema },
  checkForUpdates: { input: none, output: updateStateSchema },
  /** "Restart to update": waits for an order being sent; answers what happened. */
  restartToUpdate: { input: none, output: z.object({ outcome: z.enum(['restarting', 'not-ready', 'outbox-busy']) }) },
  /** Opens the log folder in the file manager. */
  openLogsFolder: { input: none, output: z.null() },
  /** "Export support bundle…": asks where, then writes the zip; answers the path, or null when the rep cancelled. */
  exportSupportBundle: { input: none, output: z.object({ path: z.string().nullable() }) },
} as const
