import type { AddressInput } from '../../shared/orders'
import type { AddressForm } from './components/AddressFields.vue'

/**
 * An address as its form holds it and as the core takes it: one home for the new-customer screen,
 * the customer dialogs and an order's ship-to change, so each sends an address the same way.
 */
export const emptyAddress = (): AddressForm => ({
  address_line_one: '',
  address_line_two: '',
  city: '',
  state: '',
  postal_code: '',
  country: '',
})

/** Only what the rep typed: empty optional fields are left out; an address with nothing typed is none. */
export function addressInput(fields: AddressForm): AddressInput | undefined {
  const entries = Object.entries(fields)
    .map(([key, value]) => [key, value.trim()] as const)
    .filter(([, value]) => value !== '')
  if (entries.length === 0) return undefined
  // Street and city go even when empty, so the core answers "Enter the city" rather than "required".
  return {
    address_line_one: fields.address_line_one.trim(),
    city: fields.city.trim(),
    ...Object.fromEntries(entries),
  } as AddressInput
}

/** A synced record's address (the service's field names) as the form shows it. */
export function addressFormOf(record: unknown): AddressForm {
  const source = (record && typeof record === 'object' ? record : {}) as Record<string, unknown>
  const form = emptyAddress()
  for (const key of Object.keys(form) as (keyof AddressForm)[]) {
    const value = source[key]
    form[key] = typeof value === 'string' ? value : ''
  }
  return form
}

/** The core's issues about one address, keyed by the address's own field names (`prefix` is its path). */
export function issuesUnder(issues: Record<string, string>, prefix: string): Record<string, string | undefined> {
  const errors: Record<string, string | undefined> = {}
  for (const [path, message] of Object.entries(issues)) {
    if (path.startsWith(`${prefix}.`)) errors[path.slice(prefix.length + 1)] = message
  }
  return errors
}
