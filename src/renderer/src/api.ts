/**
 * The renderer's only door to the core. Only stores and composables call `api` (components ask them),
 * never window.satchel, so the transport (Electron preload or the test bridge) stays invisible to the
 * rest of the app.
 */
import type { SatchelApi } from '../../shared/contract'
import type { Result } from '../../shared/result'
import { ApiError } from './errors'

function resolveApi(): SatchelApi {
  const api = window.satchel
  if (!api) throw new Error('Satchel’s bridge to the core is missing: the preload did not run.')
  return api
}

export const api: SatchelApi = resolveApi()

export async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  const result = await pending
  if (!result.ok) throw new ApiError(result.error)
  return result.value
}
