/**
 * The ordering-service double: `startService()` runs ordering-service-interface.md v1.19 on
 * 127.0.0.1 with seeded data, a control surface and fault injection. Test-only; Satchel never
 * imports it.
 */
export { startService } from './server'
export type * from './types'
