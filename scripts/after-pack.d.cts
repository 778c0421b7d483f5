/** The slice of electron-builder's AfterPackContext the hook reads. */
export interface AfterPackContextLike {
  appOutDir: string
  electronPlatformName: string
  /** builder-util's Arch: 0 ia32, 1 x64, 2 armv7l, 3 arm64, 4 universal. */
  arch: number
  packager: {
    getResourcesDir(appOutDir: string): string
    config: { electronVersion?: string | null }
    executableName?: string
    appInfo: { productFilename: string }
  }
}

interface Log {
  log(message: string): void
  warn(message: string): void
}

declare function afterPack(context: AfterPackContextLike): Promise<void>
declare namespace afterPack {
  export { afterPack as default }
  export function installElectronBinding(
    context: AfterPackContextLike,
    env?: NodeJS.ProcessEnv,
    log?: Log,
  ): string | undefined
  export function flipSatchelFuses(context: AfterPackContextLike, log?: Log): Promise<string>
  export function satchelFuses(context: AfterPackContextLike): Promise<Record<string, unknown>>
  export function executablePath(context: AfterPackContextLike): string
  export class PackagingError extends Error {}
}
export = afterPack
