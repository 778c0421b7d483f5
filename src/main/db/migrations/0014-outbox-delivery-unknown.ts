import type { Migration } from '../migration'

export const migration: Migration = {
  version: 14,
  name: 'outbox entries the service may already hold',
  up(db) {
    // When an attempt ended without the service's answer (a dropped connection, a timeout, a 5xx, a
    // send cut short), the order may have been committed all the same. From then on a refusal is not
    // proof that the service holds nothing: the entry is not shown as refused, edited or discarded
    // until the service has been asked (orders/outbox/flusher.ts). The column holds when that uncertainty
    // began, which bounds how far back the service's order list is searched.
    //
    // Entries from before this version cannot say how their earlier attempts ended, so every one that
    // was attempted counts as uncertain: the ones in flight or waiting to retry, and a refused one
    // that had been tried more than once (its first attempt may have been committed). The cost is one
    // look at the order list before such an entry can be edited or discarded.
    db.exec(`
        ALTER TABLE outbox ADD COLUMN delivery_unknown_since TEXT;
        UPDATE outbox SET delivery_unknown_since = queued_at
          WHERE (state IN ('queued', 'sending', 'retrying') AND attempts > 0)
             OR (state = 'needsAttention' AND attempts > 1);
    `)
  },
}
