/**
 * The one home of order_details (the full order as GET /v1/orders/{guid} answered, with its related
 * orders), order_detail_sightings (when this laptop saw an order's status change) and
 * order_detail_refusals: rows in and out. What they mean to the rep (status, "changed since I
 * looked", the order screen) is worked out in tracking/.
 */
import type { Database, Statement } from 'better-sqlite3'
import { customerOfOrder } from './customers'
import { historyOrderOfDetail, historyOrders, OrderHistory } from './order-history'

/** An order whose full copy is missing or older than its history row. */
export interface DetailCandidate {
  guid: string
  updatedAt: string | null
  customerGuid: string | null
}

export interface DetailRow {
  order_guid: string
  order_updated_at: string | null
  fetched_at: string
  json: string
  related_json: string
  status_key: string
  opened_status_key: string
  opened_at: string | null
}

export interface ChangeRow {
  guid: string
  name: string | null
  customer_guid: string | null
  customer_name: string | null
  created_at: string | null
  json: string
  status_key: string
  opened_status_key: string
}

export interface SightingRow {
  seen_at: string
  state_name: string | null
  summary: string
}

const DAY_MS = 86_400_000

/** A sighting is written when a fetched copy's status key differs from the one before it. */
export interface DetailCopy {
  guid: string
  updatedAt: string | null
  fetchedAt: string
  json: string
  related: string
  key: string
  state: { id: number | null; name: string }
  summary: string
}

export class OrderDetailRows {
  private readonly selectCandidates: Statement<{ sinceMs: number; sent: string; limit: number }, DetailCandidate>
  private readonly countCandidates: Statement<{ sinceMs: number; sent: string }, number>
  private readonly selectDetail: Statement<[string], DetailRow>
  private readonly upsertDetail: Statement<{
    guid: string
    updatedAt: string | null
    fetchedAt: string
    json: string
    related: string
    key: string
  }>
  private readonly insertSighting: Statement<[string, string, number | null, string, string, string]>
  private readonly selectSightings: Statement<[string], SightingRow>
  private readonly markOpened: Statement<{ guid: string; at: string }>
  private readonly countChanged: Statement<[], number>
  private readonly selectChanged: Statement<{ customer: string | null }, ChangeRow>
  private readonly selectOfCustomer: Statement<[string], ChangeRow>
  private readonly history: OrderHistory
  private readonly refusals

  constructor(private readonly db: Database) {
    // The history's orders of the window and those sent from this laptop, whose full copy is missing
    // or older than the history row: newest first, so a capped run fetches what the rep most likely
    // asks about.
    const candidates = `FROM ${historyOrders} LEFT JOIN order_details d ON d.order_guid = o.guid
      WHERE o.deleted_at IS NULL
        AND (o.created_ms >= @sinceMs OR lower(o.api_guid) IN (SELECT value FROM json_each(@sent)))
        AND (d.order_guid IS NULL OR (o.updated_at IS NOT NULL AND (d.order_updated_at IS NULL OR o.updated_at > d.order_updated_at)))
        AND NOT EXISTS (SELECT 1 FROM order_detail_refusals r WHERE r.order_guid = o.guid AND r.order_updated_at IS o.updated_at)`
    this.selectCandidates = db.prepare(
      `SELECT o.guid AS guid, o.updated_at AS updatedAt, o.customer_guid AS customerGuid ${candidates} ORDER BY o.created_ms DESC, o.id DESC LIMIT @limit`,
    )
    this.countCandidates = db
      .prepare<{ sinceMs: number; sent: string }, number>(`SELECT count(*) ${candidates}`)
      .pluck()
    this.selectDetail = db.prepare('SELECT * FROM order_details WHERE order_guid = ?')
    // A first copy sets the baseline the rep is compared against: nothing is "changed" before it.
    this.upsertDetail =
      db.prepare(`INSERT INTO order_details (order_guid, order_updated_at, fetched_at, json, related_json, status_key, opened_status_key)
      VALUES (@guid, @updatedAt, @fetchedAt, @json, @related, @key, @key)
      ON CONFLICT (order_guid) DO UPDATE SET order_updated_at = excluded.order_updated_at, fetched_at = excluded.fetched_at,
        json = excluded.json, related_json = excluded.related_json, status_key = excluded.status_key`)
    this.insertSighting = db.prepare(
      'INSERT INTO order_detail_sightings (order_guid, seen_at, state_id, state_name, status_key, summary) VALUES (?, ?, ?, ?, ?, ?)',
    )
    this.selectSightings = db.prepare(
      'SELECT seen_at, state_name, summary FROM order_detail_sightings WHERE order_guid = ? ORDER BY seen_at, rowid',
    )
    this.markOpened = db.prepare(
      'UPDATE order_details SET opened_status_key = status_key, opened_at = @at WHERE order_guid = @guid',
    )
    this.countChanged = db
      .prepare<[], number>(
        `SELECT count(*) FROM order_details d JOIN ${historyOrderOfDetail} WHERE o.deleted_at IS NULL AND d.status_key <> d.opened_status_key`,
      )
      .pluck()
    const changeColumns = `o.guid AS guid, o.name AS name, o.customer_guid AS customer_guid,
      coalesce(c.name, json_extract(o.json, '$.Vendor.name')) AS customer_name, o.created_at AS created_at,
      d.json AS json, d.status_key AS status_key, d.opened_status_key AS opened_status_key`
    const changeJoin = `order_details d JOIN ${historyOrderOfDetail} LEFT JOIN ${customerOfOrder}`
    this.selectChanged = db.prepare(
      `SELECT ${changeColumns} FROM ${changeJoin} WHERE o.deleted_at IS NULL AND d.status_key <> d.opened_status_key
        AND (@customer IS NULL OR o.customer_guid = @customer) ORDER BY o.created_ms DESC, o.id DESC`,
    )
    this.selectOfCustomer = db.prepare(
      `SELECT ${changeColumns} FROM ${changeJoin} WHERE o.deleted_at IS NULL AND o.customer_guid = ? ORDER BY o.created_ms DESC, o.id DESC`,
    )
    this.history = new OrderHistory(db)
    this.refusals = {
      upsert: db.prepare<{ guid: string; updatedAt: string | null; at: string; reason: string }>(
        `INSERT INTO order_detail_refusals (order_guid, order_updated_at, refused_at, reason) VALUES (@guid, @updatedAt, @at, @reason)
         ON CONFLICT (order_guid) DO UPDATE SET order_updated_at = excluded.order_updated_at, refused_at = excluded.refused_at, reason = excluded.reason`,
      ),
      clear: db.prepare<[string]>('DELETE FROM order_detail_refusals WHERE order_guid = ?'),
      get: db.prepare<[string], { order_updated_at: string | null; refused_at: string; reason: string }>(
        'SELECT order_updated_at, refused_at, reason FROM order_detail_refusals WHERE order_guid = ?',
      ),
    }
  }

  /**
   * The orders to fetch in full, at most `limit`: synced orders placed in the last `windowDays`
   * days and the orders sent from this laptop (by api_guid), whose copy is missing or whose history
   * row's updated_at moved past the copy's.
   */
  candidates(options: { now: number; windowDays: number; sentApiGuids: readonly string[]; limit: number }): {
    next: DetailCandidate[]
    waiting: number
  } {
    const params = {
      sinceMs: options.now - options.windowDays * DAY_MS,
      sent: JSON.stringify(options.sentApiGuids.map((key) => key.toLowerCase())),
    }
    return {
      next: this.selectCandidates.all({ ...params, limit: Math.max(0, options.limit) }),
      waiting: this.countCandidates.get(params) ?? 0,
    }
  }

  /** Keeps a fetched copy; a new status key is a sighting on the order's timeline; a refusal before it is cleared. */
  store(copy: DetailCopy): void {
    this.db
      .transaction(() => {
        const before = this.selectDetail.get(copy.guid)
        this.upsertDetail.run({
          guid: copy.guid,
          updatedAt: copy.updatedAt,
          fetchedAt: copy.fetchedAt,
          json: copy.json,
          related: copy.related,
          key: copy.key,
        })
        if (before?.status_key !== copy.key)
          this.insertSighting.run(copy.guid, copy.fetchedAt, copy.state.id, copy.state.name, copy.key, copy.summary)
        this.refusals.clear.run(copy.guid)
      })
      .immediate()
  }

  /**
   * The supplier's latest copy of the order could not be kept (`reason`): the last good copy stays and
   * is shown marked, and this version (`updatedAt`, the history row's) is not fetched again.
   */
  refuse(guid: string, updatedAt: string | null, at: string, reason: string): void {
    this.refusals.upsert.run({ guid, updatedAt, at, reason })
  }

  refusal(guid: string): { order_updated_at: string | null; refused_at: string; reason: string } | undefined {
    return this.refusals.get.get(guid)
  }

  detail(guid: string): DetailRow | undefined {
    return this.selectDetail.get(guid)
  }

  sightings(guid: string): SightingRow[] {
    return this.selectSightings.all(guid)
  }

  /** Whether the history holds the order (a related order may not be synced yet). */
  inHistory(guid: string): boolean {
    return this.history.has(guid)
  }

  opened(guid: string, at: string): void {
    this.markOpened.run({ guid, at })
  }

  changedCount(): number {
    return this.countChanged.get() ?? 0
  }

  changedRows(customerGuid: string | null): ChangeRow[] {
    return this.selectChanged.all({ customer: customerGuid })
  }

  customerRows(customerGuid: string): ChangeRow[] {
    return this.selectOfCustomer.all(customerGuid)
  }
}
