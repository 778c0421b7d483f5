/**
 * A rep often has only the caller's number: customer search matches the phone, digits only, however
 * either side punctuates it, besides name, number, email and city.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { closeDatabase, openDatabase, type Database } from '../../../../src/main/db/database'
import { browseQueries, type BrowseQueries } from '../../../../src/main/browse'
import { LocalCopy } from '../../../../src/main/local/copy'
import { Retention } from '../../../../src/main/local/retention'
import { phoneSearchDigits } from '../../../../src/shared/phone'
import { openLocalData } from '../../../../src/main/local/data'

let directory: string
let db: Database
let queries: BrowseQueries

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'satchel-phone-'))
  db = openDatabase(join(directory, 'satchel.db'))
  const store = new LocalCopy(db, new Retention(db))
  queries = browseQueries(openLocalData(db))
  const customer = (guid: string, name: string, phone: string | null, extra: Record<string, unknown> = {}) => ({
    customer: { guid, id: null, name, phone, city: 'Portland', active: true, ...extra },
    connection: {},
    connectionDeletedAt: null,
  })
  store.applyCustomers(
    [
      customer('cu-1', 'Bayfront Bistro', '(503) 555-0142'),
      customer('cu-2', 'Harbor Hardware', '+1 503.555.0199'),
      customer('cu-3', 'Hilltop Supply', null, { customer_internal_id: '5550' }),
      customer('cu-4', 'Old Mill Deli', '503-555-0142', { active: false }),
    ],
    { listingId: store.newListingId('customers'), serverTime: null },
  )
})

afterEach(() => {
  closeDatabase(db)
  rmSync(directory, { recursive: true, force: true })
})

const guids = (query: string, includeInactive = false) =>
  queries.customers.searchCustomers({ query, includeInactive }).customers.map((c) => c.guid)

describe('customer search by phone', () => {
  it('matches the digits of the number, whatever the punctuation on either side', () => {
    expect(guids('5035550142')).toEqual(['cu-1'])
    expect(guids('503-555-0142')).toEqual(['cu-1'])
    expect(guids('(503) 555 0142')).toEqual(['cu-1'])
    expect(guids('503.555.0199')).toEqual(['cu-2'])
    expect(guids('555-0199')).toEqual(['cu-2'])
    expect(queries.customers.searchCustomers({ query: '555 0142', includeInactive: false }).total).toBe(1)
  })

  it('keeps the other fields: a number that is a customer number finds that customer too', () => {
    expect(guids('5550').sort()).toEqual(['cu-1', 'cu-2', 'cu-3'])
    expect(guids('bayfront')).toEqual(['cu-1'])
  })

  it('leaves out inactive customers unless asked, as every search does', () => {
    expect(guids('503 555 0142', true).sort()).toEqual(['cu-1', 'cu-4'])
  })

  it('reads a phone in a query only when it has no letters and enough digits to mean one', () => {
    expect(phoneSearchDigits('(503) 555-0142')).toBe('5035550142')
    expect(phoneSearchDigits('+1 503.555.0199')).toBe('15035550199')
    expect(phoneSearchDigits('555')).toBeNull()
    expect(phoneSearchDigits('Bistro 5550')).toBeNull()
  })
})
