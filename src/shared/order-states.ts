/**
 * An order's state by name: the name the service sends when it sends one, else the interface's name
 * for the id, else the id itself. One rule for the orders list, the order screen, documents and the CLI.
 */
const knownStates: Record<number, string> = {
  1: 'PRELIMINARY',
  2: 'SUBMITTED',
  8: 'SHIPPED',
  9: 'COMPLETED',
  23: 'CANCELLED',
}

export function orderStateName(id: number | null, name: string | null = null): string {
  return name ?? (id !== null ? (knownStates[id] ?? `State ${id}`) : 'Unknown')
}

/** The interface's state names in the rep's and the customer's words. */
const stateWords: Record<string, string> = {
  PRELIMINARY: 'In review',
  SUBMITTED: 'Submitted',
  SHIPPED: 'Shipped',
  COMPLETED: 'Completed',
  CANCELLED: 'Cancelled',
}

/**
 * A state name as people read it, on screen and on paper: "Submitted", "In review", not the wire's
 * "SUBMITTED". A name the interface does not list, written in capitals ("PARTIALLY_SHIPPED"), is put
 * in sentence case ("Partially shipped"); one already in words is kept as the supplier wrote it.
 */
export function orderStateWords(name: string): string {
  const known = stateWords[name.trim().toUpperCase()]
  if (known) return known
  if (name !== name.toUpperCase()) return name
  const words = name.trim().replaceAll('_', ' ').replace(/\s+/g, ' ').toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}
