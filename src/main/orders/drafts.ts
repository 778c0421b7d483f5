import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { draftLineSchema, draftRejectionSchema, newCustomerSchema, shipToSchema, type Draft } from '../../shared/orders'
import type { Database } from '../db/database'
import { CoreError } from '../errors'
import type { Clock } from '../ports'

/** The stored document: a draft without the columns the table already holds. */
const documentSchema = z.object({
  newCustomer: newCustomerSchema.nullable().default(null),
  customerLocalId: z.string().nullable().default(null),
  priceGroupGuid: z.string().nullable().default(null),
  poNo: z.string().default(''),
  note: z.string().default(''),
  shippingInstructions: z.string().default(''),
  shipTo: shipToSchema.nullable().default(null),
  remainInPreliminary: z.boolean().default(false),
  lines: z.array(draftLineSchema).default([]),
  rejection: draftRejectionSchema.nullable().default(null),
})
type DraftDocument = z.infer<typeof documentSchema>

interface DraftRow {
  id: number
  api_guid: string
  customer_guid: string | null
  catalog_guid: string | null
  document: string
  created_at: string
  updated_at: string
}

export type DraftFields = Omit<Draft, 'id' | 'apiGuid' | 'createdAt' | 'updatedAt'>

export function newLineId(): string {
  return randomUUID()
}

/**
 * Drafts in SQLite, saved on every change. A draft's api_guid is chosen when it is created and kept
 * for life — through edits, sending, rejection and re-sending — because it is the service's
 * idempotency key.
 */
export class DraftRepository {
  private readonly insertRow
  private readonly updateRow
  private readonly selectOne
  private readonly selectByApiGuid
  private readonly selectAll
  private readonly deleteRow
  private readonly selectRecentCatalogs
  private readonly selectIds

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {
    this.insertRow = db.prepare<[number | null, string, string | null, string | null, string, string, string]>(
      'INSERT INTO drafts (id, api_guid, customer_guid, catalog_guid, document, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    )
    this.updateRow = db.prepare<[string | null, string | null, string, string, number]>(
      'UPDATE drafts SET customer_guid = ?, catalog_guid = ?, document = ?, updated_at = ? WHERE id = ?',
    )
    this.selectOne = db.prepare<[number], DraftRow>('SELECT * FROM drafts WHERE id = ?')
    this.selectByApiGuid = db.prepare<[string], DraftRow>('SELECT * FROM drafts WHERE api_guid = ?')
    this.selectAll = db.prepare<[], DraftRow>('SELECT * FROM drafts ORDER BY updated_at DESC, id DESC')
    this.deleteRow = db.prepare<[number]>('DELETE FROM drafts WHERE id = ?')
    this.selectIds = db.prepare<[], number>('SELECT id FROM drafts').pluck()
    this.selectRecentCatalogs = db.prepare<[string | null, string | null], { catalogGuid: string; at: string }>(
      'SELECT catalog_guid AS catalogGuid, updated_at AS at FROM drafts WHERE catalog_guid IS NOT NULL AND (? IS NULL OR customer_guid = ?) ORDER BY updated_at DESC LIMIT 20',
    )
  }

  private toDraft(row: DraftRow): Draft {
    const document: DraftDocument = documentSchema.parse(JSON.parse(row.document))
    return {
      id: row.id,
      apiGuid: row.api_guid,
      customerGuid: row.customer_guid,
      catalogGuid: row.catalog_guid,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      ...document,
    }
  }

  private document(fields: DraftFields): string {
    const { customerGuid: _c, catalogGuid: _k, ...rest } = fields
    return JSON.stringify(documentSchema.parse(rest))
  }

  /**
   * `id` brings a draft back under the number the rep knew it by (a rejected order reopened): ids are
   * AUTOINCREMENT, so a draft's number is never handed to another, and is free again only for it.
   * An order queued whole (OrderDesk.composeOrder) never had a number (0) and gets a new one.
   */
  create(fields: DraftFields, apiGuid: string = randomUUID(), id: number | null = null): Draft {
    const now = new Date(this.clock.now()).toISOString()
    const reuse = id !== null && id > 0 && this.selectOne.get(id) === undefined ? id : null
    const { lastInsertRowid } = this.insertRow.run(
      reuse,
      apiGuid,
      fields.customerGuid,
      fields.catalogGuid,
      this.document(fields),
      now,
      now,
    )
    return this.get(Number(lastInsertRowid))
  }

  find(id: number): Draft | null {
    const row = this.selectOne.get(id)
    return row ? this.toDraft(row) : null
  }

  findByApiGuid(apiGuid: string): Draft | null {
    const row = this.selectByApiGuid.get(apiGuid)
    return row ? this.toDraft(row) : null
  }

  get(id: number): Draft {
    const draft = this.find(id)
    if (!draft) throw new CoreError('NOT_FOUND', 'That draft no longer exists; it may have been sent or discarded.')
    return draft
  }

  list(): Draft[] {
    return this.selectAll.all().map((row) => this.toDraft(row))
  }

  save(id: number, fields: DraftFields): Draft {
    const now = new Date(this.clock.now()).toISOString()
    const { changes } = this.updateRow.run(fields.customerGuid, fields.catalogGuid, this.document(fields), now, id)
    if (changes === 0)
      throw new CoreError('NOT_FOUND', 'That draft no longer exists; it may have been sent or discarded.')
    return this.get(id)
  }

  /**
   * The drafts made for a customer made on this laptop (by its key) become drafts for the customer
   * the service made, by its guid, as if drafted for it. Their number.
   */
  followCustomer(key: string, customerGuid: string): number {
    const following = this.list().filter((draft) => draft.customerLocalId === key.toLowerCase())
    for (const { id, apiGuid: _a, createdAt: _c, updatedAt: _u, ...fields } of following)
      this.save(id, { ...fields, customerGuid, newCustomer: null, customerLocalId: null })
    return following.length
  }

  delete(id: number): void {
    this.deleteRow.run(id)
  }
  /** Catalogs of the drafts, most recently edited first: a customer's, or everyone's with null. */
  recentCatalogs(customerGuid: string | null): { catalogGuid: string; at: string }[] {
    return this.selectRecentCatalogs.all(customerGuid, customerGuid)
  }

  /** Every open draft's number. */
  ids(): number[] {
    return this.selectIds.all()
  }
}
