/**
 * Which synced rows must outlive the service's listing. A full listing removes local rows the
 * service no longer lists, but a draft or an outbox entry may still name a customer or catalog item
 * the service dropped: deleting it would leave the rep with an order that cannot be shown or fixed.
 * Those rows stay, flagged (unlisted_at, or their tombstone's deleted_at), out of every live view but
 * readable by guid.
 *
 * Two ways to say a row is needed; sync asks both before removing anything:
 * - a view named `retained_refs` with columns (kind, guid), created by the drafts/outbox migration
 *   over their own tables. Being SQL, it holds for every process that syncs this database: the app
 *   and the `satchel` CLI alike. This is the hook drafts and the outbox should use.
 * - providers registered at run time on this object (core.sync.retention.register), for needs that
 *   only live in memory.
 */
import type { Database, Statement } from 'better-sqlite3'

export type RetainableKind = 'catalog' | 'priceGroup' | 'catalogItem' | 'customer'

/** Answers which of `guids` (at most a few thousand at a time) are still needed. */
export type RetentionProvider = (kind: RetainableKind, guids: readonly string[]) => Iterable<string>

const retentionViewName = 'retained_refs'

export class Retention {
  private readonly providers = new Set<RetentionProvider>()
  private readonly viewExists: Statement<[], unknown>
  private viewQuery: Statement<[string, string], string> | null = null

  constructor(private readonly db: Database) {
    this.viewExists = db.prepare(
      `SELECT 1 FROM sqlite_master WHERE name = '${retentionViewName}' AND type IN ('view', 'table')`,
    )
  }

  /** Returns the function that unregisters the provider. */
  register(provider: RetentionProvider): () => void {
    this.providers.add(provider)
    return () => {
      this.providers.delete(provider)
    }
  }

  retained(kind: RetainableKind, guids: readonly string[]): Set<string> {
    const kept = new Set<string>()
    if (guids.length === 0) return kept
    for (const provider of this.providers) {
      for (const guid of provider(kind, guids)) kept.add(guid)
    }
    // The view appears with a later migration, possibly while this process runs: look each time.
    if (this.viewExists.get()) {
      this.viewQuery ??= this.db
        .prepare<[string, string], string>(
          `SELECT DISTINCT guid FROM ${retentionViewName} WHERE kind = ? AND guid IN (SELECT value FROM json_each(?))`,
        )
        .pluck()
      for (const guid of this.viewQuery.all(kind, JSON.stringify(guids))) kept.add(guid)
    }
    return kept
  }
}
