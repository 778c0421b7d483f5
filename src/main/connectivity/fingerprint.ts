import { networkInterfaces } from 'node:os'

type Interfaces = ReturnType<typeof networkInterfaces>

/**
 * A short string that changes when the laptop joins another network (new address, Wi-Fi to
 * ethernet, VPN up or down). Electron's main process has no network-change event, so the monitor
 * compares this between polls.
 */
export function networkFingerprint(interfaces: Interfaces = networkInterfaces()): string {
  const entries: string[] = []
  for (const [name, addresses] of Object.entries(interfaces)) {
    for (const address of addresses ?? []) {
      if (!address.internal) entries.push(`${name}/${address.family}/${address.address}`)
    }
  }
  return entries.sort().join(',')
}
