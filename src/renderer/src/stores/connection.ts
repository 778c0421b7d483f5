import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { Connection, ConnectionInput } from '../../../shared/contract'
import { api, unwrap } from '../api'

/** The saved connection as main describes it: never a secret, only whether one is kept. */
export const useConnectionStore = defineStore('connection', () => {
  const connection = ref<Connection | null>(null)
  const loaded = ref(false)
  let loading: Promise<void> | null = null

  function load(): Promise<void> {
    loading ??= unwrap(api.getConnection())
      .then((value) => {
        connection.value = value
        loaded.value = true
      })
      .finally(() => {
        loading = null
      })
    return loading
  }

  /** Resolves once the connection is known (the router's guard waits on it). */
  async function ensureLoaded(): Promise<Connection | null> {
    if (!loaded.value) await load()
    return connection.value
  }

  /** Tries the typed values (omitted secrets = the saved ones). Throws ApiError on failure. */
  async function test(input: ConnectionInput): Promise<number> {
    const result = await unwrap(api.testConnection(input))
    return result.catalogs
  }

  /** Sends the values to main once; the caller clears its secret fields afterwards. */
  async function save(input: ConnectionInput): Promise<Connection> {
    connection.value = await unwrap(api.saveConnection(input))
    loaded.value = true
    return connection.value
  }

  api.onEvent((event) => {
    if (event.name === 'connectionChanged') {
      connection.value = event.payload
      loaded.value = true
    }
  })

  const configured = computed(() => connection.value !== null)
  return { connection, loaded, configured, load, ensureLoaded, test, save }
})
