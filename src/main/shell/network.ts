/**
 * The Electron half of connectivity: net.isOnline() as the cheap "is any network up" signal, and
 * waking from sleep as a reason to look again. Everything else (the probe, captive portals, when to
 * sync) is in src/main/connectivity, free of Electron.
 */
import type { ConnectivityMonitor } from '../connectivity'

export interface PowerEvents {
  on(event: 'resume', listener: () => void): unknown
  removeListener(event: 'resume', listener: () => void): unknown
}

/**
 * After sleep the laptop is often on another network, or none; check before anything trusts the old
 * answer. Every open profile's monitor: a profile in the background may have orders waiting.
 */
export function refreshOnResume(
  monitors: () => Pick<ConnectivityMonitor, 'refresh'>[],
  power: PowerEvents,
): () => void {
  const onResume = () => {
    for (const monitor of monitors()) void monitor.refresh('resume')
  }
  power.on('resume', onResume)
  return () => power.removeListener('resume', onResume)
}
