import type { Migration } from '../migration'

export const migration: Migration = {
  version: 7,
  name: 'rows that drafts and unsent orders still need',
  up(db) {
    // Sync removes rows a full listing no longer has, except those named here (local/retention.ts):
    // a draft or an unsent order must stay readable and fixable. A view, not a callback, because
    // the writer thread and the CLI write pages on connections of their own.
    db.exec(`
        CREATE VIEW retained_refs (kind, guid) AS
          SELECT 'customer', customer_guid FROM drafts WHERE customer_guid IS NOT NULL
          UNION ALL
          SELECT 'catalog', catalog_guid FROM drafts WHERE catalog_guid IS NOT NULL
          UNION ALL
          SELECT 'priceGroup', json_extract(document, '$.priceGroupGuid') FROM drafts WHERE json_extract(document, '$.priceGroupGuid') IS NOT NULL
          UNION ALL
          SELECT 'catalogItem', json_extract(line.value, '$.catalogItemGuid') FROM drafts, json_each(drafts.document, '$.lines') AS line
          UNION ALL
          SELECT 'customer', customer_guid FROM outbox WHERE state <> 'sent' AND customer_guid IS NOT NULL
          UNION ALL
          SELECT 'catalog', catalog_guid FROM outbox WHERE state <> 'sent'
          UNION ALL
          SELECT 'catalogItem', json_extract(line.value, '$.catalogItemGuid')
          FROM outbox JOIN outbox_payloads ON outbox_payloads.entry_id = outbox.id, json_each(outbox_payloads.draft, '$.lines') AS line
          WHERE outbox.state <> 'sent';
      `)
  },
}
