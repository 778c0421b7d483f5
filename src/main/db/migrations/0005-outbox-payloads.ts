import type { Migration } from '../migration'

export const migration: Migration = {
  version: 5,
  name: 'outbox payloads apart from the outbox state',
  up(db) {
    // SQLite rewrites a whole row on UPDATE, and every state change of an entry (claimed, sent,
    // retrying) used to rewrite its frozen draft and request too: measured at about a third of the
    // outbox's own time per order. The frozen parts move to a table that is only ever inserted into
    // and deleted from. Waiting entries get a partial index so finding the next one does not read
    // past every order already sent.
    db.exec(`
        CREATE TABLE outbox_payloads (
          entry_id INTEGER PRIMARY KEY REFERENCES outbox (id) ON DELETE CASCADE,
          draft TEXT NOT NULL,
          request TEXT NOT NULL
        ) STRICT;
        INSERT INTO outbox_payloads (entry_id, draft, request) SELECT id, draft, request FROM outbox;
        DROP TRIGGER outbox_request_is_frozen;
        ALTER TABLE outbox DROP COLUMN draft;
        ALTER TABLE outbox DROP COLUMN request;

        CREATE TRIGGER outbox_payload_is_frozen
        BEFORE UPDATE ON outbox_payloads
        BEGIN
          SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
        END;
        CREATE TRIGGER outbox_key_is_frozen
        BEFORE UPDATE OF api_guid ON outbox
        BEGIN
          SELECT RAISE(ABORT, 'an outbox entry''s request is frozen once queued');
        END;
        CREATE INDEX outbox_waiting ON outbox (id) WHERE state IN ('queued', 'retrying');
      `)
  },
}
