import type { Migration } from '../migration'

export const migration: Migration = {
  version: 12,
  name: 'rows that open quotes still need',
  up(db) {
    // An open quote is converted into a draft days later: the customer, catalog, price group and
    // items it names must survive a full sync that no longer lists them, as a draft's do, or the
    // conversion would fail on a customer "not on this laptop". The view of migration 7, plus quotes
    // not yet converted.
    db.exec(`
        DROP VIEW retained_refs;
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
          WHERE outbox.state <> 'sent'
          UNION ALL
          SELECT 'customer', customer_guid FROM quotes WHERE json_extract(document, '$.convertedAt') IS NULL
          UNION ALL
          SELECT 'catalog', json_extract(document, '$.catalogGuid') FROM quotes WHERE json_extract(document, '$.convertedAt') IS NULL
          UNION ALL
          SELECT 'priceGroup', json_extract(document, '$.priceGroupGuid') FROM quotes
          WHERE json_extract(document, '$.convertedAt') IS NULL AND json_extract(document, '$.priceGroupGuid') IS NOT NULL
          UNION ALL
          SELECT 'catalogItem', json_extract(line.value, '$.catalogItemGuid') FROM quotes, json_each(quotes.document, '$.lines') AS line
          WHERE json_extract(quotes.document, '$.convertedAt') IS NULL;
      `)
  },
}
