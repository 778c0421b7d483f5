/// <reference types="vite/client" />
import type { SatchelApi } from '../../shared/contract'

declare global {
  interface Window {
    /** Set by the preload in Electron, or by the test bridge's stand-in in a plain browser. */
    satchel?: SatchelApi
  }
}

declare module '*.vue' {
  import type { DefineComponent } from 'vue'
  const component: DefineComponent<object, object, unknown>
  export default component
}

export {}
