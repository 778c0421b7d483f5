/** Everything the client needs to authenticate, secrets included. Never leaves main. */
export type ServiceAuth =
  | { kind: 'apiKey'; apiKey: string; apiSecret: string; userGuid?: string }
  | { kind: 'session'; userGuid: string; userToken: string; supplierGuid: string }

export interface ServiceConnection {
  baseUrl: string
  auth: ServiceAuth
}

/** Where a saved connection comes from (the app's settings and secret store, or the CLI's flags). */
export interface ConnectionSource {
  /** The full credentials, or null when no complete connection is saved. */
  resolve(): Promise<ServiceConnection | null>
}
