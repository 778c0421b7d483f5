/**
 * The renderer's only door to the core. Components and stores call `api`, never window.satchel,
 * so the transport (Electron preload or the test bridge) stays invisible to the rest of the app.
 */
import type { SatchelApi } from '../../shared/contract'
import type { AppError, Result } from '../../shared/result'

function resolveApi(): SatchelApi {
  const api = window.satchel
  if (!api) throw new Error('Satchel’s bridge to the core is missing: the preload did not run.')
  return api
}

export const api: SatchelApi = resolveApi()

/** Thrown by `unwrap` so a store can show the core's message and code as they were sent. */
export class ApiError extends Error {
  constructor(readonly error: AppError) {
    super(error.message)
    this.name = 'ApiError'
  }
}

export async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  const result = await pending
  if (!result.ok) throw new ApiError(result.error)
  return result.value
}
