/**
 * The ordering-service double's public surface: what tests, the demo and the benchmarks may rely on.
 * Satchel's own code never imports from test/service.
 */
import type { ImageControl } from './images'
import type { ReplyCacheFigures } from './reply-cache'
export type { ReplyCacheFigures }

export type ServiceSize = 'tiny' | 'demo' | 'bench' | number

export interface ServiceCredentials {
  /** API key header set: x-apiKey / x-apiSecret. */
  apiKey: string
  apiSecret: string
  /** User session header set: userGuid / userToken / supplierGuid (a supplier-level user). */
  userGuid: string
  userToken: string
  supplierGuid: string
  /** A customer-level user's session (it acts only for its own customer, `vendorGuid`), for the
   * rules that differ by user type: supplier-level access on GET /vendors, customer users seeing
   * only their own orders, read-only workflow steps. */
  customerUser?: { userGuid: string; userToken: string; supplierGuid: string; vendorGuid: string }
}

/** Which requests a fault applies to. `route` is METHOD plus the route pattern, e.g.
 * 'GET /v1/catalog/:catalogGuid/catalog_items', or '*' for every route. */
interface FaultMatch {
  route: string
  /** Skip this many matching requests before the fault starts applying (default 0). */
  skip?: number
  /** Apply to this many matching requests, then retire (default: until cleared). */
  times?: number
}

type FaultAction =
  /** Waits `ms` before handling the request (default), or with phase 'reply' after the handler ran
   * (and wrote) and before the response is sent: a reply that arrives late, or never. */
  | { type: 'latency'; ms: number; phase?: 'request' | 'reply' }
  /** `echoHeaders`: the body is a text that quotes every request header, as a proxy's error page may
   * (credentials included), each in that spelling: `Name: value` lines, `name=value` or `name value`. */
  | {
      type: 'status'
      status: number
      body?: unknown
      contentType?: string
      headers?: Record<string, string>
      echoHeaders?: HeaderEcho
    }
  | { type: 'rateLimit'; retryAfterSeconds: number }
  /** The socket is destroyed before any response is written (nothing committed). */
  | { type: 'destroySocket' }
  /** Order creation: the order is committed, then the socket is destroyed before the response. */
  | { type: 'commitThenDrop' }
  /** Between this listing's page requests, rows are inserted into / soft-deleted from the listed set. */
  | { type: 'drift'; insert?: number; remove?: number }
  /** A proxy that drops the `offset` parameter: every page request is answered as the first page,
   * with its `hasMoreItems` (true while the listing has a second page) and its total. */
  | { type: 'ignoreOffset' }
  /** A service (or a proxy) that ignores the customer's context: `vendorGuid`, header or query, never
   * reaches the handler, so an order list is the supplier's whole list. */
  | { type: 'ignoreVendorGuid' }
  /** A misrouted cache: a catalog's item listing is answered with another catalog's (`catalogGuid`) page. */
  | { type: 'otherCatalog'; catalogGuid: string }
  /** A listing envelope's count (`totalCatalogItems` or `total`) is replaced by `total`; the rows and
   * `hasMoreItems` stay true. */
  | { type: 'falseTotal'; total: number }
  /** The reply goes out `bytesPerTick` bytes (default 1) every `intervalMs` (default 100); the headers,
   * with the full content-length, go at once with the first bytes. */
  | { type: 'trickle'; bytesPerTick?: number; intervalMs?: number }
  /** The reply body is padded to `bytes`: by a long `__padding` string field in the top-level object
   * (valid JSON, the default; whitespace after a non-object body), or with `valid: false` by filler
   * after the JSON. Streamed, so any size costs no memory. `contentLength: false` sends it chunked. */
  | { type: 'oversized'; bytes: number; valid?: boolean; contentLength?: boolean }
  /** The reply announces its full length, sends the first `bytes` bytes of its body, then the
   * connection is closed: a reply cut mid-body. */
  | { type: 'truncate'; bytes: number }
  /** The double's clock as reported (every `serverTimestamp` in the body and the HTTP Date header) is
   * shifted by `offsetMs` (default +1 day); its data keeps being stamped with its real clock. */
  | { type: 'futureClock'; offsetMs?: number }
  /** Every catalog item `pricing` object in the reply carries bad values and/or bad keys. */
  | { type: 'badPricing'; values?: BadPriceValue[]; priceGroup?: string; keys?: BadPriceKey[]; keyValue?: unknown }
  /** The reply says `content-encoding: <encoding>` (default gzip) and its body is the plain JSON: a
   * proxy that mangled the reply, or a server that labels what it did not compress. */
  | { type: 'badEncoding'; encoding?: ReplyEncoding }
  /** The reply is a valid body in `encoding` (default gzip) that inflates to `bytes` bytes (the JSON's
   * start, then spaces): a few KB on the wire, as a compression bomb would be. */
  | { type: 'inflates'; bytes: number; encoding?: ReplyEncoding }

/** The content codings the double can send: what Satchel asks for. */
export type ReplyEncoding = 'gzip' | 'br' | 'deflate'

/** How an echoing proxy spells a request header: `x-apiSecret: S`, `x-apiSecret=S` or `x-apiSecret S`. */
export type HeaderEcho = 'colon' | 'equals' | 'space'

/** Bad values for a price group's entry: -5, the string "12.50", and the JSON text 1e400 (Infinity once parsed). */
export type BadPriceValue = 'negative' | 'numericString' | 'nonFinite'
/** Bad keys added to `pricing`: `__proto__`, `constructor`, the empty string and a 5,000-character key. */
export type BadPriceKey = '__proto__' | 'constructor' | 'empty' | 'long'

export type FaultRule = FaultMatch & FaultAction

export interface RequestLogEntry {
  at: string
  method: string
  /** The path with its query string, as received. */
  url: string
  /** The matched route pattern, e.g. 'POST /v1/orderWithItems'. */
  route: string
  status: number
  headers: Record<string, string>
  query: Record<string, unknown>
  body?: unknown
  /** When the request arrived (epoch ms, real time, not the double's shifted clock). */
  startedMs: number
  /**
   * When the double was last busy with it (epoch ms): the handler's end, the reply's end or the
   * connection's close, whichever came last. Absent while none has happened: still in flight.
   */
  endedMs?: number
  /** The content coding the reply went out in, when the double compressed it. */
  encoding?: string
  /** The reply body's bytes as sent, when the double compressed it or a compression fault made it. */
  sentBytes?: number
  /** Answered from the reply cache (`cacheReplies`), the handler left out. */
  fromCache?: boolean
}

/** Two requests carrying the same idempotency key that the double was handling at the same time. */
export interface InFlightOverlap {
  key: string
  first: { url: string; startedMs: number; endedMs: number | null }
  second: { url: string; startedMs: number; endedMs: number | null }
}

export type FulfilmentStep =
  | { kind: 'state'; stateId: number }
  /** Ships `qty` of each listed line (by item_no); unlisted lines ship nothing. With `backorderRest`
   * each line's unshipped rest goes to a new backorder (`<name>-BO<n>`, related), else it stays pending. */
  | { kind: 'ship'; lines: { itemNo: number; qty: number }[]; backorderRest?: boolean }
  | { kind: 'hold'; onHold: boolean }
  | { kind: 'cancel' }

export type MutableKind = 'catalogItem' | 'customer' | 'catalog' | 'priceGroup' | 'category' | 'order'

/** Tests' and drills' handle on the double. Every mutation stamps updated_at with the double's clock. */
export interface ServiceControl extends ImageControl {
  /** The double's current time (its own clock, which shiftClock moves). */
  now(): Date
  shiftClock(ms: number): void

  /** Snapshots of the stored records, in the service's own field names (deleted rows included). */
  catalogs(): Record<string, unknown>[]
  priceGroups(catalogGuid: string): Record<string, unknown>[]
  categories(catalogGuid: string): Record<string, unknown>[]
  catalogItems(catalogGuid: string): Record<string, unknown>[]
  customers(): Record<string, unknown>[]
  orders(): Record<string, unknown>[]

  /** Shallow-merges fields into a record; returns the updated record. */
  update(kind: MutableKind, guid: string, patch: Record<string, unknown>): Record<string, unknown>
  setPrice(catalogItemGuid: string, priceGroupName: string, price: number | 'N/A'): void
  softDelete(kind: MutableKind, guid: string): void
  deactivate(kind: 'catalogItem' | 'customer' | 'catalog', guid: string): void
  insertCatalogItem(catalogGuid: string, fields?: Record<string, unknown>): Record<string, unknown>
  insertCustomer(fields?: Record<string, unknown>): Record<string, unknown>
  setSupplierSetting(name: 'remainInPreliminary', value: boolean): void
  /** Support grants the API key `POST /vendors` and `PUT /v1/vendors/{guid}` (or takes it back with `false`). */
  grantApiKeyCustomers(granted?: boolean): void
  /** The order's workflow step becomes read-only for API users (PUT /v1/orders/{guid} → 403), or not with `false`. */
  lockOrderStep(orderGuid: string, locked?: boolean): void
  /** The supplier's staff edit the order's header (PUT /v1/orders' fields), as in their web app; returns the order. */
  editOrderHeader(orderGuid: string, fields: Record<string, unknown>): Record<string, unknown>
  /**
   * The supplier-level session user's token expires (requests carrying it get 401 `SESSION_EXPIRED`),
   * and a new one is issued, as signing in again would: the answer is the new token.
   */
  expireSession(): { userToken: string }
  /**
   * What the supplier's staff do after an order was placed: move it to a state, ship some lines (the
   * rest pending or backordered into a new related order), put it on hold or take it off, cancel it.
   * Returns the full order.
   */
  fulfilOrder(orderGuid: string, step: FulfilmentStep): Record<string, unknown>

  addFault(rule: FaultRule): string
  removeFault(id: string): void
  clearFaults(): void
  /**
   * Back to the data the double started with (same seed, same epoch), with no faults, an empty
   * request log and the clock unshifted; connections open at the time are closed. Lets one double
   * serve test after test, each as if it were new.
   */
  reset(): void

  /** Every order created with this api_guid (exactly-once checks expect length 1). */
  ordersByApiGuid(apiGuid: string): Record<string, unknown>[]
  requestLog(): RequestLogEntry[]
  clearRequestLog(): void
  /**
   * The API's replies since the log was cleared: how many, their bodies' bytes as written (JSON) and
   * as sent (compressed, when they were). Counted whatever the log's length.
   */
  replyBytes(): { replies: number; bodyBytes: number; sentBytes: number }
  /**
   * Order creations (orderWithItems, order, v2 order) of one api_guid that overlapped in time: a
   * second arrived while the double was still handling the first. A client that sends each order
   * once at a time never causes one, even when its idempotency key would make the second harmless.
   */
  inFlightOverlaps(): InFlightOverlap[]
  /** The reply cache's figures (`cacheReplies`), or null when it is off. */
  replyCache(): ReplyCacheFigures | null
}

export interface StartServiceOptions {
  seed?: number
  size?: ServiceSize
  /** 0 (default) picks a free port. Always bound to 127.0.0.1. */
  port?: number
  faults?: FaultRule[]
  /** Serve the control surface over HTTP under /__control (never in-process-only by default). */
  httpControl?: boolean
  /** Keep request bodies in the request log (default true; the bench turns it off). */
  logBodies?: boolean
  /**
   * Compress replies of 1 KB and more in the coding the request prefers of br, gzip and deflate
   * (`accept-encoding`), as a service behind a web server does (default true; `--no-compress`).
   */
  compress?: boolean
  /**
   * Opt-in: 24 months of orders for a few customers, one of them seasonal (history.ts); the default
   * data is the same without it. `busyOrders`: other customers' recent orders besides.
   */
  history?: boolean | { busyOrders?: number }
  /**
   * Opt-in, the benches': a cache in front of the double, as a CDN would be (reply-cache.ts). A 200
   * GET's reply is kept as sent and an identical GET answered from it without the handler or the
   * compressor; any write empties it. `limitBytes` bounds it (default 1 GiB). Default off.
   */
  cacheReplies?: boolean | { limitBytes?: number }
}

export interface RunningService {
  url: string
  credentials: ServiceCredentials
  control: ServiceControl
  close(): Promise<void>
}
