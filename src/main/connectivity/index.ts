/**
 * Reachability of the ordering service, free of Electron: the shell feeds it net.isOnline() and
 * power events; tests and the CLI can use it as is.
 */
export * from './fingerprint'
export * from './monitor'
export * from './probe'
export * from './sync-on-reconnect'
export * from './replies'
export * from './methods'
