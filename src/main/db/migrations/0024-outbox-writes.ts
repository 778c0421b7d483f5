import type { Migration } from '../migration'

/** The state check as migration 3 wrote it, and as it reads with the two states of writes after Send. */
const statesBefore = "CHECK (state IN ('queued', 'sending', 'retrying', 'needsAttention', 'sent'))"
const statesAfter =
  "CHECK (state IN ('queued', 'sending', 'retrying', 'needsAttention', 'sent', 'conflict', 'refused'))"

export const migration: Migration = {
  version: 24,
  name: 'outbox writes of every kind',
  up(db) {
    // One outbox for every write the rep makes, each in effect once: orders as before, and submits,
    // changes to sent orders, new customers and customer changes. `kind` says which rule sends an
    // entry (orders/outbox/write-kinds.ts); `depends_on` names the entry it waits for (a submit for its order, an
    // order for a customer made offline), so the queue is worked in dependency order and a refused
    // entry holds back only what depends on it; `detail` is what the entry learnt on the way (a
    // conflict's two values, the rep's "apply mine", what a submit filled) — never the request, which
    // stays frozen in outbox_payloads. No foreign key on depends_on: a sent dependency may be purged,
    // and what depended on it is then free to go.
    // A database whose version was set back to replay earlier upgrades (the upgrade tests) may hold
    // them already: each part is added only where it is missing.
    const columns = new Set(db.prepare<[], string>("SELECT name FROM pragma_table_info('outbox')").pluck().all())
    if (!columns.has('kind'))
      db.exec(`
        ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'order'
          CHECK (kind IN ('order', 'submit', 'orderChange', 'newCustomer', 'customerChange'));
      `)
    if (!columns.has('depends_on')) db.exec('ALTER TABLE outbox ADD COLUMN depends_on INTEGER')
    if (!columns.has('detail')) db.exec('ALTER TABLE outbox ADD COLUMN detail TEXT')
    db.exec('CREATE INDEX IF NOT EXISTS outbox_dependents ON outbox (depends_on) WHERE depends_on IS NOT NULL')
    // Two new states: `conflict` (the supplier changed a field the rep changed too; both values are
    // kept until the rep picks one) and `refused` (the supplier said no to a write after Send, in its
    // own words; tried once). Widening a CHECK leaves every stored row valid, so the table's text is
    // rewritten in place (SQLite's lang_altertable, "other kinds of table schema changes") rather
    // than the table copied: dropping it would cascade to outbox_payloads.
    const sql = db
      .prepare<[], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'outbox'")
      .pluck()
      .get()
    if (sql?.includes(statesAfter)) return
    if (!sql || !sql.includes(statesBefore)) throw new Error('the outbox table is not as migration 3 left it')
    const cookie = db.pragma('schema_version', { simple: true }) as number
    // better-sqlite3's defensive mode keeps sqlite_schema read-only even under writable_schema.
    db.unsafeMode(true)
    try {
      db.pragma('writable_schema = ON')
      db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'outbox'").run(
        sql.replace(statesBefore, statesAfter),
      )
      db.pragma(`schema_version = ${cookie + 1}`)
    } finally {
      db.pragma('writable_schema = OFF')
      db.unsafeMode(false)
    }
  },
}
