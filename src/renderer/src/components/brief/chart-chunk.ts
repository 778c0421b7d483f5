/**
 * The chart's chunk (Chart.js and sales-chart.ts), asked for once: the brief's chart waits on it, and
 * the customer list and the customer's page ask for it ahead, so a click on a customer does not wait
 * for the library on top of their figures.
 */
let loading: Promise<typeof import('./sales-chart')> | null = null

export function loadSalesChart(): Promise<typeof import('./sales-chart')> {
  loading ??= import('./sales-chart').catch((error: unknown) => {
    // Asked again next time: an app updated under an open window may have the chunk back.
    loading = null
    throw error
  })
  return loading
}
