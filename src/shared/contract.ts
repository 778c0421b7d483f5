/**
 * The IPC contract between the renderer and the core: one schema for every argument, result and
 * event. Main validates every argument against it before any handler runs; the Electron preload and
 * the test bridge both expose exactly these methods.
 */
import { z } from 'zod'
import type { EventName, MethodName } from './channels'
import type { Result } from './result'

export const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  database: z.object({
    path: z.string(),
    schemaVersion: z.number().int(),
    journalMode: z.string(),
  }),
})
export type AppInfo = z.infer<typeof appInfoSchema>

export const settingsSchema = z.object({
  /** Minutes between background syncs. */
  syncIntervalMinutes: z.number().int().min(5).max(1440),
  /** Default for a new draft's remainInPreliminary. */
  remainInPreliminaryDefault: z.boolean(),
})
export type Settings = z.infer<typeof settingsSchema>

export const settingsPatchSchema = settingsSchema.partial().strict()
export type SettingsPatch = z.infer<typeof settingsPatchSchema>

const noArgument = z.undefined()

export const contract = {
  getAppInfo: { input: noArgument, output: appInfoSchema },
  getSettings: { input: noArgument, output: settingsSchema },
  updateSettings: { input: settingsPatchSchema, output: settingsSchema },
} as const satisfies Record<MethodName, { input: z.ZodType; output: z.ZodType }>

export const eventSchemas = {
  settingsChanged: settingsSchema,
} as const satisfies Record<EventName, z.ZodType>

export type Contract = typeof contract
export type MethodInput<M extends MethodName> = z.input<Contract[M]['input']>
export type MethodOutput<M extends MethodName> = z.output<Contract[M]['output']>
export type EventPayload<E extends EventName> = z.output<(typeof eventSchemas)[E]>

export type SatchelEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName]

/** The API object the renderer sees as `window.satchel`, from the preload or the test bridge. */
export type SatchelApi = {
  [M in MethodName]: MethodInput<M> extends undefined
    ? () => Promise<Result<MethodOutput<M>>>
    : (argument: MethodInput<M>) => Promise<Result<MethodOutput<M>>>
} & {
  /** Subscribes to core events; returns the function that unsubscribes. */
  onEvent(listener: (event: SatchelEvent) => void): () => void
}
