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
