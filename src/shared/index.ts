export * from './channels'
export * from './contract'
export * from './result'
export * from './synced'
