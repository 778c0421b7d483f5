/**
 * The IPC contract between the renderer and the core: one schema for every argument, result and
 * event. Main validates every argument against it before any handler runs; the Electron preload and
 * the test bridge both expose exactly these methods.
 */
import { z } from 'zod'
import { credentialsInAddressProblem } from './service-address'
import type { EventName, MethodName } from './channels'
import { connectivitySchema, desktopContract, updateStateSchema } from './desktop'
import { profileListSchema, profilesContract } from './profiles'
import { ordersContract, outboxSummarySchema } from './orders'
import { orderTrackingContract } from './order-tracking'
import { quotesContract } from './quotes'
import { writesContract } from './writes'
import { customerWritesContract } from './customer-writes'
import { briefContract } from './brief'
import type { Result } from './result'
import { maxItemPictures } from './pictures'
import {
  catalogItemDetailSchema,
  catalogItemLookupSchema,
  itemFamilyLookupSchema,
  itemFamilySchema,
  catalogItemCountInputSchema,
  catalogItemCountSchema,
  catalogItemSearchResultSchema,
  catalogItemSearchSchema,
  catalogSummarySchema,
  categorySummarySchema,
  customerDetailSchema,
  customerSearchResultSchema,
  customerSearchSchema,
  orderDetailSchema,
  orderListResultSchema,
  orderListSchema,
  syncNowSchema,
  syncProgressSchema,
  catalogUpdateSchema,
  syncReportSchema,
  syncStatusSchema,
} from './synced'

const appInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  database: z.object({
    path: z.string(),
    schemaVersion: z.number().int(),
    journalMode: z.string(),
    /** What the file holds (its pages), and of that what is free for reuse, in bytes. */
    sizeBytes: z.number().int(),
    freeBytes: z.number().int(),
    /** What the last purge removed and the space it freed inside the file; null before the first. */
    lastPurge: z
      .object({ at: z.string(), sentOrders: z.number().int(), quotes: z.number().int(), bytesFreed: z.number().int() })
      .nullable(),
  }),
})
export type AppInfo = z.infer<typeof appInfoSchema>

const settingsSchema = z.object({
  /** Minutes between background syncs. */
  syncIntervalMinutes: z.number().int().min(5).max(1440),
  /** Default for a new draft's remainInPreliminary. */
  remainInPreliminaryDefault: z.boolean(),
  /** How many days a new quote is valid for. */
  quoteValidityDays: z.number().int().min(1).max(365),
  /** Sent orders stay in the outbox's list this many months after they were sent, then are purged. */
  keepSentOrdersMonths: z.number().int().min(1).max(120),
  /** A quote past its validity is kept this many days more (converted or not), then purged. */
  keepExpiredQuotesDays: z.number().int().min(0).max(3650),
  /** Full orders fetched per sync at most (newest first); the rest wait for the next run. */
  orderDetailsPerSync: z.number().int().min(1).max(2000),
  /** The disk the item pictures may take, in MB; the oldest pictures no open order or customer needs go first. */
  pictureBudgetMB: z.number().int().min(50).max(100_000),
  /** Quotes show each line's picture when printed (the customer chooses from them). */
  picturesOnQuotes: z.boolean(),
  /** Order confirmations (and drafts) show each line's picture when printed: off, a confirmation is a record. */
  picturesOnOrders: z.boolean(),
})
export type Settings = z.infer<typeof settingsSchema>

const settingsPatchSchema = settingsSchema.partial().strict()
export type SettingsPatch = z.infer<typeof settingsPatchSchema>

const uuid = z.uuid()

/** A host on this computer (127.0.0.0/8, ::1, localhost): a request to it never crosses a network. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/**
 * Why a service address must not be used: plain http to another computer, over which the API secret
 * (sent with every request) and every order would cross the network readable by anyone on it. Null
 * for https, for http on this computer, and for what is not a URL (other checks say so).
 */
export function plainHttpProblem(baseUrl: string): string | null {
  if (!URL.canParse(baseUrl)) return null
  const url = new URL(baseUrl)
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null
  return `Use https:// for ${url.host}: over plain http the API secret and every order would travel unencrypted, readable on the network. Plain http is accepted only for this computer (localhost, 127.x.x.x, ::1).`
}

/**
 * Credentials as the renderer sends them. A secret (apiSecret, userToken) travels to main once and is
 * never sent back: omitting it on a later save keeps the stored one.
 */
export const connectionInputSchema = z
  .object({
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'Enter the service address, starting with https://' })
      .superRefine((baseUrl, ctx) => {
        const problem = credentialsInAddressProblem(baseUrl) ?? plainHttpProblem(baseUrl)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      }),
    auth: z.discriminatedUnion('kind', [
      z.object({
        kind: z.literal('apiKey'),
        apiKey: z.string().trim().min(1, 'Enter the API key'),
        apiSecret: z.string().min(1, 'Enter the API secret').optional(),
        userGuid: uuid.nullable().optional(),
      }),
      z.object({
        kind: z.literal('session'),
        userGuid: uuid,
        userToken: z.string().min(1, 'Enter the user token').optional(),
        supplierGuid: uuid,
      }),
    ]),
  })
  .strict()
export type ConnectionInput = z.infer<typeof connectionInputSchema>

/** What the renderer may know about the saved connection: never the secrets, only whether one is kept. */
const connectionSchema = z.object({
  baseUrl: z.string(),
  auth: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('apiKey'),
      apiKey: z.string(),
      userGuid: z.string().nullable(),
      hasSecret: z.boolean(),
    }),
    z.object({ kind: z.literal('session'), userGuid: z.string(), supplierGuid: z.string(), hasToken: z.boolean() }),
  ]),
})
export type Connection = z.infer<typeof connectionSchema>

const noArgument = z.undefined()

/** The item pictures on this laptop (docs/pictures.md), as the Settings screen shows them beside their budget. */
const pictureStatusSchema = z.object({
  cached: z.number().int(),
  bytes: z.number(),
  /** The budget in bytes (the setting pictureBudgetMB). */
  budget: z.number(),
  waiting: z.number().int(),
  failed: z.number().int(),
})
export type PictureStatus = z.infer<typeof pictureStatusSchema>

/** An item's pictures for the panel's gallery (docs/pictures.md): how many are known, and which are on this laptop. */
const itemPicturesSchema = z.object({
  /** 0 where nothing is known of them yet (never read, or no picture). */
  count: z.number().int().min(0).max(maxItemPictures),
  /** One per picture, the primary first: whether it can be shown now. */
  fetched: z.array(z.boolean()).max(maxItemPictures),
})

export const contract = {
  getAppInfo: { input: noArgument, output: appInfoSchema },
  getSettings: { input: noArgument, output: settingsSchema },
  updateSettings: { input: settingsPatchSchema, output: settingsSchema },
  /** Null where this core keeps no pictures (a throwaway one). */
  getPictureStatus: { input: noArgument, output: pictureStatusSchema.nullable() },
  /**
   * The item panel opened: the item joins what the rep viewed (fetched early), and with `fetch` its
   * pictures are read and fetched now where the service answers. Null where this core keeps none.
   */
  getItemPictures: {
    input: z.object({ itemGuid: z.string().min(1).max(200), fetch: z.boolean() }).strict(),
    output: itemPicturesSchema.nullable(),
  },
  /** The items of the families on screen ([] when none is): fetched first and kept in the cache while there. */
  setPicturesOnScreen: {
    input: z.object({ itemGuids: z.array(z.string().min(1).max(200)).max(2000) }).strict(),
    output: z.object({}),
  },
  getConnection: { input: noArgument, output: connectionSchema.nullable() },
  saveConnection: { input: connectionInputSchema, output: connectionSchema },
  /** Tries the given connection (secrets omitted = the saved ones), or the saved one; fails with UNAVAILABLE, UNAUTHORIZED or REJECTED. */
  testConnection: { input: connectionInputSchema.optional(), output: z.object({ catalogs: z.number() }) },
  /** Runs a sync now, or joins the one running; `full` lists everything and removes what the service no longer has. */
  syncNow: { input: syncNowSchema, output: syncReportSchema },
  cancelSync: { input: noArgument, output: z.object({ cancelled: z.boolean() }) },
  getSyncStatus: { input: noArgument, output: syncStatusSchema },
  /** Where the catalog work an upgrade left stands (see catalogUpdateSchema). */
  getCatalogUpdate: { input: noArgument, output: catalogUpdateSchema },
  /** With customerGuid: only the catalogs that customer may order from. */
  listCatalogs: {
    input: z
      .object({ customerGuid: z.string().min(1).max(100).optional() })
      .strict()
      .optional(),
    output: z.array(catalogSummarySchema),
  },
  listCategories: {
    input: z.object({ catalogGuid: z.string().min(1).max(100) }).strict(),
    output: z.array(categorySummarySchema),
  },
  searchCatalogItems: { input: catalogItemSearchSchema, output: catalogItemSearchResultSchema },
  /** How many items a search matches, counted no further than ITEM_COUNT_CAP. */
  countCatalogItems: { input: catalogItemCountInputSchema, output: catalogItemCountSchema },
  getCatalogItem: { input: catalogItemLookupSchema, output: catalogItemDetailSchema },
  getItemFamily: { input: itemFamilyLookupSchema, output: itemFamilySchema },
  searchCustomers: { input: customerSearchSchema, output: customerSearchResultSchema },
  getCustomer: { input: z.object({ guid: z.string().min(1).max(100) }).strict(), output: customerDetailSchema },
  listOrders: { input: orderListSchema, output: orderListResultSchema },
  getOrder: { input: z.object({ guid: z.string().min(1).max(100) }).strict(), output: orderDetailSchema },
  ...ordersContract,
  ...writesContract,
  ...customerWritesContract,
  ...briefContract,
  ...orderTrackingContract,
  ...quotesContract,
  ...desktopContract,
  ...profilesContract,
} as const satisfies Record<MethodName, { input: z.ZodType; output: z.ZodType }>

/** Every event has its schema: a name without one fails to compile. */
type SchemaOfEach<T extends Record<EventName, z.ZodType>> = T

type CustomerHistoryChangedSchema = z.ZodObject<{ customerGuid: z.ZodString }>

/** How many new pictures came into the cache. */
type PicturesFetchedSchema = z.ZodObject<{ fetched: z.ZodNumber }>

/** What each event main pushes to the window carries; nothing checks events at run time, so types are enough. */
type EventSchemas = SchemaOfEach<{
  settingsChanged: typeof settingsSchema
  connectionChanged: typeof connectionSchema
  /** A sync started or finished. */
  syncStatusChanged: typeof syncStatusSchema
  /** At most a few times a second while a sync runs. */
  syncProgress: typeof syncProgressSchema
  syncFinished: typeof syncReportSchema
  /** After each slice of the catalog work an upgrade left, at most a few times a second, and when it is done. */
  catalogUpdateChanged: typeof catalogUpdateSchema
  /** Any outbox entry changed state, or one was added or removed. */
  outboxChanged: typeof outboxSummarySchema
  connectivityChanged: typeof connectivitySchema
  updateStateChanged: typeof updateStateSchema
  /** A profile was added, removed or put on screen, or a profile's unsent counts changed. */
  profilesChanged: typeof profileListSchema
  /** New pictures came into the cache (a pass, a gallery): a placeholder shown for one may now be a picture. */
  picturesFetched: PicturesFetchedSchema
  /** A customer's order history was read: their brief, if on screen, is read again (getCustomerBrief). */
  customerHistoryChanged: CustomerHistoryChangedSchema
}>

type Contract = typeof contract
export type MethodInput<M extends MethodName> = z.input<Contract[M]['input']>
export type MethodOutput<M extends MethodName> = z.output<Contract[M]['output']>
/** What the core implements for each method: the argument already validated against the contract. */
export type Implementations = {
  [M in MethodName]: (argument: z.output<Contract[M]['input']>) => MethodOutput<M> | Promise<MethodOutput<M>>
}
export type EventPayload<E extends EventName> = z.output<EventSchemas[E]>

export type SatchelEvent = { [E in EventName]: { name: E; payload: EventPayload<E> } }[EventName]

/** The API object the renderer sees as `window.satchel`, from the preload or the test bridge. */
export type SatchelApi = {
  [M in MethodName]: [MethodInput<M>] extends [undefined]
    ? () => Promise<Result<MethodOutput<M>>>
    : undefined extends MethodInput<M>
      ? (argument?: MethodInput<M>) => Promise<Result<MethodOutput<M>>>
      : (argument: MethodInput<M>) => Promise<Result<MethodOutput<M>>>
} & {
  /** Subscribes to core events; returns the function that unsubscribes. */
  onEvent(listener: (event: SatchelEvent) => void): () => void
  /**
   * Where item pictures are read from, before `<size>/<itemGuid>` (shared/pictures.ts): the shell's
   * satchel-picture:// protocol, or the test bridge's route. Absent: no pictures, only placeholders.
   */
  readonly pictureBase?: string
}
