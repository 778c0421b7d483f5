import type { Keychain, SecretName, SecretStore } from '../ports'

const secretNames: readonly SecretName[] = ['apiSecret', 'userToken']

/** One profile's view of the keychain: its names carry the profile's prefix, so profiles never share a secret. */
export function profileKeychain(store: SecretStore, namespace: string): Keychain {
  return {
    isAvailable: () => store.isAvailable(),
    get: (name) => store.get(`${namespace}${name}`),
    set: (name, value) => store.set(`${namespace}${name}`, value),
    delete: (name) => store.delete(`${namespace}${name}`),
  }
}

/** Deletes every secret of a profile being removed. */
export async function forgetProfileSecrets(store: SecretStore, namespace: string): Promise<void> {
  for (const name of secretNames) await store.delete(`${namespace}${name}`)
}
