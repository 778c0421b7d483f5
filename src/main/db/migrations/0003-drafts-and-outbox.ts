import type { Migration } from '../migration'

export const migration: Migration = {
  version: 3,
  name: 'drafts and the outbox',
  up(db) {
    // Drafts are JSON documents: a draft is edited as a whole and its shape grows with the product.
    // The outbox keeps each entry's request frozen, enforced by a trigger, because "exactly once"
    // depends on every attempt sending the same api_guid and body.
    db.exec(`
      CREATE TABLE drafts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        api_guid TEXT NOT NULL UNIQUE,
        customer_guid TEXT,
        catalog_guid TEXT,
        document TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;

      -- AUTOINCREMENT: ids give the queue's order and must never be reused after a discard.
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        api_guid TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL CHECK (state IN ('queued', 'sending', 'retrying', 'needsAttention', 'sent')),
        customer_guid TEXT,
        customer_name TEXT NOT NULL,
        catalog_guid TEXT NOT NULL,
        draft TEXT NOT NULL,
        request TEXT NOT NULL,
        rep_totals TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER,
        last_error TEXT,
        errors TEXT NOT NULL DEFAULT '[]',
        result TEXT,
        queued_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        sent_at TEXT
      ) STRICT;

      CREATE INDEX outbox_by_state ON outbox (state, id);

      CREATE TRIGGER outbox_request_is_frozen
      BEFORE UPDATE OF api_guid, request, draft ON outbox
      BEGIN
        SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
      END;
    `)
  },
}
