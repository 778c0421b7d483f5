export declare function findElectronBinary(): string | undefined
