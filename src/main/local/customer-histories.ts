/**
 * The customer_histories table's one home: how far back each customer's order history is held on
 * this laptop, when it was last read, and when the rep last opened the customer's page. The orders
 * themselves are the order history's (order-history.ts); what they add up to is brief/'s.
 */
import type { Database } from 'better-sqlite3'

export interface CustomerHistoryRow {
  customer_guid: string
  fetched_at: string | null
  covered_from_ms: number | null
  complete: number
  cursor: string | null
  visited_at: string | null
}

/** What one read of a customer's history found: how far back it reached, and whether to the end. */
export interface HistoryRead {
  fetchedAt: string
  coveredFromMs: number | null
  complete: boolean
  cursor: string | null
}

export class CustomerHistories {
  private readonly statements

  constructor(db: Database) {
    this.statements = {
      get: db.prepare<[string], CustomerHistoryRow>('SELECT * FROM customer_histories WHERE customer_guid = ?'),
      read: db.prepare<{
        guid: string
        fetchedAt: string
        from: number | null
        complete: number
        cursor: string | null
      }>(
        `INSERT INTO customer_histories (customer_guid, fetched_at, covered_from_ms, complete, cursor)
         VALUES (@guid, @fetchedAt, @from, @complete, @cursor)
         ON CONFLICT (customer_guid) DO UPDATE SET fetched_at = excluded.fetched_at,
           covered_from_ms = excluded.covered_from_ms, complete = excluded.complete, cursor = excluded.cursor`,
      ),
      visit: db.prepare<[string, string]>(
        `INSERT INTO customer_histories (customer_guid, visited_at) VALUES (?, ?)
         ON CONFLICT (customer_guid) DO UPDATE SET visited_at = excluded.visited_at`,
      ),
      any: db.prepare<[], number>('SELECT 1 FROM customer_histories LIMIT 1').pluck(),
      whole: db.prepare<[], CustomerHistoryRow>(
        'SELECT * FROM customer_histories WHERE complete = 1 AND cursor IS NOT NULL',
      ),
      visitedSince: db
        .prepare<[string], string>('SELECT customer_guid FROM customer_histories WHERE visited_at >= ?')
        .pluck(),
    }
  }

  get(customerGuid: string): CustomerHistoryRow | undefined {
    return this.statements.get.get(customerGuid)
  }

  recordRead(customerGuid: string, read: HistoryRead): void {
    this.statements.read.run({
      guid: customerGuid,
      fetchedAt: read.fetchedAt,
      from: read.coveredFromMs,
      complete: read.complete ? 1 : 0,
      cursor: read.cursor,
    })
  }

  recordVisit(customerGuid: string, at: string): void {
    this.statements.visit.run(customerGuid, at)
  }

  /** Whether any brief was opened or read on this laptop. */
  any(): boolean {
    return this.statements.any.get() !== undefined
  }

  /** The histories read whole, with the cursor their next read starts from. */
  whole(): CustomerHistoryRow[] {
    return this.statements.whole.all()
  }

  /** Customers whose page the rep opened at `sinceIso` or later. */
  visitedSince(sinceIso: string): string[] {
    return this.statements.visitedSince.all(sinceIso)
  }
}
