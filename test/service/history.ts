/**
 * Opt-in order history (`startService({ history: true })`, `npm run service -- --history`): 24 months
 * of orders for a few customers, so a customer's brief has something to show, and one of them buys in
 * the summer. Drawn from a stream of its own after everything else is generated, so the default data
 * (which many end-to-end tests count) is the same with or without it; ids and order numbers follow
 * the seeded ones.
 */
import { seedOrder } from './generate'
import { Rng } from './prng'
import { STATE, type UserRec } from './model'
import type { CatalogEntry, ItemEntry, Store, VendorEntry } from './store'

const DAY = 86_400_000

export interface HistoryOptions {
  /**
   * Orders of other customers over the last 60 days (default 0): with 2,100 of them the seasonal
   * customer's older orders lie beyond the newest 20 pages a sync reads.
   */
  busyOrders?: number
}

/** The seasonal customer's figures: the brief's bench size (500 orders, 5,000 lines in 24 months). */
export const seasonalOrders = 500
const seasonalLines = 10
/** Orders older than 24 months: a history read stops before them. */
const olderThanTwoYears = 12
const steadyCustomers = 2
const steadyOrders = 40
/** The newest an order of the history is, and the oldest inside 23 months (any day of the month). */
const newestAgeMs = 2 * 3_600_000
const oldestAgeDays = 680

interface Ordering {
  catalog: CatalogEntry
  group: number
  pool: ItemEntry[]
}

/** The customer's catalog (its locked one, else the first), its price group there and what it is offered. */
function orderingFor(store: Store, vendor: VendorEntry, pools: Map<string, ItemEntry[]>): Ordering | null {
  const catalog = store.catalogsById.get(vendor.rec.lock_catalog_id) ?? store.catalogs[0]
  if (!catalog) return null
  const ownGroup = store.priceGroupsById.get(vendor.rec.price_group_id)
  const groups = store.livePriceGroups(catalog)
  const group = groups.find((candidate) => candidate.rec.value === ownGroup?.rec.value) ?? groups[0]
  if (!group) return null
  const key = `${catalog.rec.id}:${group.rec.value}`
  const pool =
    pools.get(key) ??
    catalog.items.filter(
      (item) =>
        item.rec.active &&
        item.rec.deleted_at === null &&
        !item.rec.is_product_group &&
        typeof item.rec.pricing[group.rec.value] === 'number',
    )
  pools.set(key, pool)
  return pool.length >= seasonalLines ? { catalog, group: group.rec.id, pool } : null
}

/** Summer peaks: July about four times February, by the order's month (UTC). */
function seasonWeight(ms: number): number {
  const month = new Date(ms).getUTCMonth()
  return 1 + 0.75 * Math.cos((2 * Math.PI * (month - 6)) / 12)
}

function stateFor(rng: Rng, ageMs: number): number {
  if (rng.chance(0.04)) return STATE.CANCELLED
  if (ageMs > 30 * DAY) return STATE.COMPLETED
  return rng.pick([STATE.PRELIMINARY, STATE.SUBMITTED, STATE.SHIPPED, STATE.COMPLETED])
}

export function generateHistory(store: Store, seed: number, options: HistoryOptions): void {
  const rng = new Rng(seed).fork('history')
  const epochMs = store.epoch.getTime()
  const reps = store.users.filter((user) => user.type === 'supplier' && !user.is_master).slice(1)
  const rep = (): UserRec => rng.pick(reps)
  const pools = new Map<string, ItemEntry[]>()
  const eligible = store.vendors.filter(
    (vendor) =>
      vendor.rec.active &&
      vendor.rec.lock_catalog_id === 0 &&
      vendor.rec.id !== store.customerUser.vendor_id &&
      orderingFor(store, vendor, pools) !== null,
  )
  const [seasonal, ...others] = eligible
  if (!seasonal) return
  const place = (vendor: VendorEntry, ordering: Ordering, createdMs: number, extra: { lineCount?: number } = {}) => {
    const user = rep()
    const ageMs = epochMs - createdMs
    const entry = seedOrder(store, rng, {
      vendor,
      catalog: ordering.catalog,
      group: ordering.group,
      pool: ordering.pool,
      stateId: stateFor(rng, ageMs),
      createdMs,
      user,
      rep: user,
      fromApp: rng.chance(0.5),
      ...extra,
    })
    // A few quotes in the supplier's web app: not sales.
    if (entry.rec.order_state_id === STATE.PRELIMINARY && rng.chance(0.3)) entry.rec.is_quote = true
    return entry
  }

  // The seasonal customer: regulars all along, and favourites it stopped ordering half a year ago.
  const ordering = orderingFor(store, seasonal, pools)!
  const shuffled = ordering.pool.map((item) => ({ item, key: rng.next() }))
  shuffled.sort((a, b) => a.key - b.key)
  const regulars = shuffled.slice(0, 40).map((entry) => entry.item)
  const favourites = shuffled.slice(40, 48).map((entry) => entry.item)
  const ages: number[] = []
  while (ages.length < seasonalOrders) {
    const ageMs = newestAgeMs + Math.floor(rng.next() * (oldestAgeDays * DAY - newestAgeMs))
    if (rng.next() * 1.75 < seasonWeight(epochMs - ageMs)) ages.push(ageMs)
  }
  for (let i = 0; i < olderThanTwoYears; i++) ages.push((740 + rng.int(0, 160)) * DAY)
  ages.sort((a, b) => b - a)
  for (const ageMs of ages) {
    const pool = ageMs > 200 * DAY ? [...regulars, ...favourites] : regulars
    place(seasonal, { ...ordering, pool }, epochMs - ageMs, { lineCount: seasonalLines })
  }

  // Two customers who order steadily, a few lines at a time.
  for (const vendor of others.slice(0, steadyCustomers)) {
    const steady = orderingFor(store, vendor, pools)!
    const times = Array.from(
      { length: steadyOrders },
      () => epochMs - newestAgeMs - Math.floor(rng.next() * (oldestAgeDays * DAY - newestAgeMs)),
    ).sort((a, b) => a - b)
    for (const createdMs of times) place(vendor, steady, createdMs)
  }

  // Everyone else's recent orders, newer than most of the above.
  const busy = others.slice(steadyCustomers)
  if (busy.length === 0) return
  const times = Array.from(
    { length: options.busyOrders ?? 0 },
    () => epochMs - newestAgeMs - Math.floor(rng.next() * 60 * DAY),
  ).sort((a, b) => a - b)
  for (const createdMs of times) {
    const vendor = rng.pick(busy)
    const theirs = orderingFor(store, vendor, pools)
    if (theirs) place(vendor, theirs, createdMs, { lineCount: rng.int(1, 2) })
  }
}
