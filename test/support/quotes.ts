import type { QuoteFields } from '../../src/main/quotes/repository'

/** A quote with no lines for Harbor Hardware, valid until `validUntil`: what the retention tests keep or purge. */
export function emptyQuote(fields: Pick<QuoteFields, 'validUntil'> & Partial<QuoteFields>): QuoteFields {
  return {
    customerGuid: 'a-customer',
    customerName: 'Harbor Hardware',
    catalogGuid: 'a-catalog',
    priceGroupGuid: null,
    priceGroupName: null,
    poNo: '',
    note: '',
    shippingInstructions: '',
    shipTo: null,
    lines: [],
    subTotal: 0,
    pricesAsOf: null,
    convertedAt: null,
    convertedDraftId: null,
    ...fields,
  }
}
