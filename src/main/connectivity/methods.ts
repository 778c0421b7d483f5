import type { Implementations } from '../../shared/contract'
import type { ConnectivityMonitor } from './monitor'

type ConnectivityMethods = Pick<Implementations, 'getConnectivity' | 'checkConnectivity' | 'setWindowVisible'>

/** The contract's connectivity methods: the monitor's state, a check on demand, and whether the window is seen. */
export function connectivityMethods(monitor: ConnectivityMonitor): ConnectivityMethods {
  return {
    getConnectivity: () => monitor.current(),
    checkConnectivity: () => monitor.refresh('requested'),
    setWindowVisible: ({ visible }) => {
      monitor.setWindowVisible(visible)
      return null
    },
  }
}
