import type { Migration } from '../migration'

export const migration: Migration = {
  version: 11,
  name: 'quotes',
  up(db) {
    // A quote is a JSON document like a draft: it is read and written whole, and its shape grows
    // with the product. Number, customer name and the text searched are columns so the list and its
    // search need no JSON parsing. quote_numbering holds the laptop's prefix and the last number
    // handed out, so a number is never given twice, even after the quote that had it is deleted.
    db.exec(`
      CREATE TABLE quotes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        number TEXT NOT NULL UNIQUE,
        customer_guid TEXT NOT NULL,
        customer_name TEXT NOT NULL,
        search_text TEXT NOT NULL,
        document TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE INDEX quotes_by_customer ON quotes (customer_guid, id DESC);

      CREATE TABLE quote_numbering (
        only INTEGER PRIMARY KEY CHECK (only = 1),
        prefix TEXT NOT NULL,
        last INTEGER NOT NULL
      ) STRICT;
    `)
  },
}
